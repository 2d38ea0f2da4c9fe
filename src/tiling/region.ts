// The five turf modules this needs, not @turf/turf (every module of turf: about 12 MB more of every
// CLI process's memory, for any command).
import { bbox as turfBbox } from '@turf/bbox';
import { bboxPolygon } from '@turf/bbox-polygon';
import { booleanIntersects } from '@turf/boolean-intersects';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { pointOnFeature } from '@turf/point-on-feature';
import type { MultiPolygon, Polygon } from 'geojson';
import { InvalidRegionError } from './errors.js';
import { containsClosed } from './geo.js';
import type { BBox, Point, Region } from './types.js';

function checkBBox(b: BBox, what: string): BBox {
  if (b.length !== 4 || !b.every(Number.isFinite)) {
    throw new InvalidRegionError(`${what} must be four finite numbers [minLon, minLat, maxLon, maxLat]`);
  }
  const [minLon, minLat, maxLon, maxLat] = b;
  if (minLon < -180 || maxLon > 180 || minLat < -90 || maxLat > 90) {
    throw new InvalidRegionError(`${what} ${JSON.stringify(b)} lies outside WGS84 lon/lat ranges`);
  }
  if (!(minLon < maxLon && minLat < maxLat)) {
    throw new InvalidRegionError(`${what} ${JSON.stringify(b)} is empty or inverted (min must be below max)`);
  }
  return b;
}

function polygonOf(region: Region): Polygon | MultiPolygon | undefined {
  if (!('geojson' in region)) return undefined;
  const g = region.geojson;
  if (g.type !== 'Polygon' && g.type !== 'MultiPolygon') {
    throw new InvalidRegionError(`region.geojson must be a Polygon or MultiPolygon, got ${String((g as { type?: unknown }).type)}`);
  }
  return g;
}

/** The box that outer tile edges follow; for a polygon, its envelope. Validates the region. */
export function regionBBox(region: Region): BBox {
  const poly = polygonOf(region);
  if (poly === undefined) return checkBBox((region as { bbox: BBox }).bbox, 'region.bbox');
  const b = turfBbox(poly);
  return checkBBox([b[0], b[1], b[2], b[3]], 'region.geojson envelope');
}

/**
 * Whether a pin belongs to the region. The server answers boxes, so for a polygon region a pin can
 * come back from a tile and still lie outside; the polygon boundary counts as inside.
 */
export function inRegion(region: Region, point: Point): boolean {
  const poly = polygonOf(region);
  if (poly === undefined) return containsClosed((region as { bbox: BBox }).bbox, point.lon, point.lat);
  return booleanPointInPolygon([point.lon, point.lat], poly);
}

/**
 * Whether a tile is worth requesting. Touching counts: a pin on the polygon boundary that is also on the
 * tile edge may be owned by this tile, so dropping touching tiles could orphan it.
 */
export function tileIntersectsRegion(bbox: BBox, region: Region): boolean {
  const poly = polygonOf(region);
  if (poly === undefined) {
    const r = (region as { bbox: BBox }).bbox;
    return bbox[0] <= r[2] && bbox[2] >= r[0] && bbox[1] <= r[3] && bbox[3] >= r[1];
  }
  return booleanIntersects(bboxPolygon([bbox[0], bbox[1], bbox[2], bbox[3]]), poly);
}

/**
 * A point of the region itself: the envelope's centre where the region holds it, else a point on
 * the polygon's surface (a region with a hole around its centre, or a crescent).
 */
export function pointInRegion(region: Region): Point {
  const [minLon, minLat, maxLon, maxLat] = regionBBox(region);
  const centre = { lon: (minLon + maxLon) / 2, lat: (minLat + maxLat) / 2 };
  if (!('geojson' in region) || inRegion(region, centre)) return centre;
  const [lon, lat] = pointOnFeature(region.geojson as Polygon | MultiPolygon).geometry.coordinates as [number, number];
  return { lon, lat };
}
