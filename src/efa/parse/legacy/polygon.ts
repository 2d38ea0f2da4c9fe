import type { LatLonPoint } from '../rings.js';
import { isObject, plausibleLonLat, RecordProblem } from '../common.js';

/**
 * OpArea polygons. No real OpArea body was available; besides the efa-api.md form (a ring of
 * [lat, lon] points, or a list of such rings) two forms seen in other EFA outputs are accepted:
 * a string of "lat,lon" pairs separated by spaces or semicolons, and a GeoJSON Polygon, whose
 * positions are [lon, lat]. Everything is returned as [lat, lon] rings for `toClosedRing`.
 */
type Path = readonly PropertyKey[];

function point(lat: unknown, lon: unknown, path: Path): LatLonPoint {
  const la = typeof lat === 'string' ? Number(lat) : lat;
  const lo = typeof lon === 'string' ? Number(lon) : lon;
  if (typeof la !== 'number' || typeof lo !== 'number') throw new RecordProblem(path, 'expected two numbers');
  const checked = plausibleLonLat(lo, la, path);
  return [checked.lat, checked.lon];
}

function latLonPairs(ring: unknown, path: Path): LatLonPoint[] {
  if (!Array.isArray(ring)) throw new RecordProblem(path, 'expected a list of [lat, lon] points');
  return ring.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new RecordProblem([...path, i], 'expected a [lat, lon] pair');
    return point(pair[0], pair[1], [...path, i]);
  });
}

function pairText(text: string, path: Path): LatLonPoint[] {
  const tokens = text.trim().split(/[\s;]+/).filter((token) => token !== '');
  return tokens.map((token, i) => {
    const parts = token.split(',');
    if (parts.length !== 2) throw new RecordProblem([...path, i], `expected "lat,lon", got "${token}"`);
    return point(parts[0], parts[1], [...path, i]);
  });
}

function geoJsonRings(value: Record<string, unknown>, path: Path): LatLonPoint[][] {
  const rings = value['coordinates'];
  if (value['type'] !== 'Polygon' || !Array.isArray(rings)) throw new RecordProblem(path, 'expected a GeoJSON Polygon');
  return rings.map((ring, r) => {
    if (!Array.isArray(ring)) throw new RecordProblem([...path, 'coordinates', r], 'expected a ring');
    return ring.map((position, i) => {
      const at = [...path, 'coordinates', r, i];
      if (!Array.isArray(position) || position.length < 2) throw new RecordProblem(at, 'expected a [lon, lat] position');
      return point(position[1], position[0], at);
    });
  });
}

/** The area's rings as [lat, lon] points; [] for an empty polygon. */
export function polygonRings(value: unknown, path: Path): LatLonPoint[][] {
  if (typeof value === 'string') {
    const ring = pairText(value, path);
    return ring.length === 0 ? [] : [ring];
  }
  if (isObject(value)) return geoJsonRings(value, path);
  if (!Array.isArray(value)) throw new RecordProblem(path, `unsupported polygon (${typeof value})`);
  if (value.length === 0) return [];
  const first: unknown = value[0];
  if (typeof first === 'string') return value.map((ring, r) => pairText(String(ring), [...path, r]));
  if (Array.isArray(first) && Array.isArray(first[0])) return value.map((ring, r) => latLonPairs(ring, [...path, r]));
  return [latLonPairs(value, path)];
}
