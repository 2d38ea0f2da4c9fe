import type { CoordOrder, Position } from '../records.js';
import { gridShaped, ImplausibleCoordinatesError, isObject, RecordProblemError } from './common.js';
import { tooManyPoints } from './polygon.js';
import { toClosedRing, type LatLonPoint } from './rings.js';

/**
 * A GeoJSON geometry of an answer (rapidJSON OpArea `operatingZone`), read as polygons. GeoJSON
 * positions are [lon, lat], but EFA writes its own coordinates [lat, lon], and the interface's
 * published schema types a position only as two numbers; so the order is read off the values:
 * a value above 90 in magnitude can only be a longitude. When every value fits either reading the
 * geometry is read in GeoJSON order and marked `ambiguous` (the job's region decides later, see
 * relations/sharing.ts). Areal types (Polygon, MultiPolygon, and the polygons of a
 * GeometryCollection, Feature or FeatureCollection) give polygons; Point and line types give none
 * (`kind` says which it was). A broken position is a RecordProblemError at its path; a value that
 * cannot be WGS84 in either order (a projected grid) is ImplausibleCoordinatesError, which stops the run.
 */
export interface ReadGeometry {
  /** Closed rings per polygon, [lon, lat]; empty when the geometry holds no polygon. */
  readonly polygons: Position[][][];
  readonly order: CoordOrder;
  readonly closedByParser: boolean;
  /** The GeoJSON types met that are not areal (Point, LineString, ...), for attrs. */
  readonly nonAreal: string[];
}

type Path = readonly PropertyKey[];
/** One ring as received: its positions (first two numbers of each) and where it was. */
interface RawRing {
  readonly points: [number, number][];
  readonly path: Path;
}

const NON_AREAL = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString']);

export function readGeoJsonAreas(value: unknown, path: Path): ReadGeometry {
  const polygons: RawRing[][] = [];
  const nonAreal: string[] = [];
  tooManyPoints(value, path);
  collect(value, path, polygons, nonAreal, 0);
  const points = polygons.flatMap((polygon) => polygon.flatMap((ring) => ring.points));
  const order = orderOf(points, path);
  let closedByParser = false;
  const closed = polygons.map((polygon) =>
    polygon.map((ring) => {
      // toClosedRing takes [lat, lon]; a lon-first position is turned around once, here.
      const latLon = ring.points.map(([a, b]): LatLonPoint => (order === 'latLon' ? [a, b] : [b, a]));
      const result = toClosedRing(latLon, ring.path);
      closedByParser ||= result.closedByParser;
      return result.ring;
    }),
  );
  return { polygons: closed, order, closedByParser, nonAreal };
}

/** Nested collections are bounded: nothing in the schema nests them, and a cycle-free depth limit costs nothing. */
const MAX_NESTING = 4;

function collect(value: unknown, path: Path, out: RawRing[][], nonAreal: string[], depth: number): void {
  if (!isObject(value)) throw new RecordProblemError(path, `expected a GeoJSON geometry object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  if (depth > MAX_NESTING) throw new RecordProblemError(path, `GeoJSON collections nested deeper than ${MAX_NESTING} levels`);
  const type = value['type'];
  const coordinates = value['coordinates'];
  switch (type) {
    case 'Polygon':
      out.push(polygonOf(coordinates, [...path, 'coordinates']));
      return;
    case 'MultiPolygon':
      if (!Array.isArray(coordinates)) throw new RecordProblemError([...path, 'coordinates'], 'expected a list of polygons');
      coordinates.forEach((polygon, i) => out.push(polygonOf(polygon, [...path, 'coordinates', i])));
      return;
    case 'GeometryCollection':
      listAt(value, 'geometries', path).forEach((g, i) => collect(g, [...path, 'geometries', i], out, nonAreal, depth + 1));
      return;
    case 'Feature':
      if (value['geometry'] !== null && value['geometry'] !== undefined) collect(value['geometry'], [...path, 'geometry'], out, nonAreal, depth + 1);
      return;
    case 'FeatureCollection':
      listAt(value, 'features', path).forEach((f, i) => collect(f, [...path, 'features', i], out, nonAreal, depth + 1));
      return;
    default:
      if (typeof type === 'string' && NON_AREAL.has(type)) {
        nonAreal.push(type);
        return;
      }
      throw new RecordProblemError([...path, 'type'], `expected a GeoJSON geometry type (Polygon, MultiPolygon, ...), got ${JSON.stringify(type) ?? 'nothing'}`);
  }
}

function listAt(value: Record<string, unknown>, key: string, path: Path): unknown[] {
  const list = value[key];
  if (!Array.isArray(list)) throw new RecordProblemError([...path, key], 'expected a list');
  return list;
}

function polygonOf(value: unknown, path: Path): RawRing[] {
  if (!Array.isArray(value) || value.length === 0) throw new RecordProblemError(path, 'expected a polygon: a non-empty list of linear rings');
  return value.map((ring, r) => {
    const at = [...path, r];
    if (!Array.isArray(ring)) throw new RecordProblemError(at, 'expected a linear ring: a list of positions');
    return { points: ring.map((position, i) => positionOf(position, [...at, i])), path: at };
  });
}

function positionOf(value: unknown, path: Path): [number, number] {
  if (!Array.isArray(value) || value.length < 2) throw new RecordProblemError(path, 'expected a position: [x, y]');
  const [a, b] = value as unknown[];
  if (typeof a !== 'number' || !Number.isFinite(a)) throw new RecordProblemError([...path, 0], `expected a number, got ${JSON.stringify(a)}`);
  if (typeof b !== 'number' || !Number.isFinite(b)) throw new RecordProblemError([...path, 1], `expected a number, got ${JSON.stringify(b)}`);
  return [a, b];
}

/**
 * The order of all positions of one geometry (one answer never mixes orders within a geometry).
 * A value beyond 180, or values beyond 90 in both places, fit neither order: a grid coordinate.
 */
function orderOf(points: readonly [number, number][], path: Path): CoordOrder {
  let firstIsLon = false;
  let secondIsLon = false;
  for (const [a, b] of points) {
    if (Math.abs(a) > 180 || Math.abs(b) > 180) throw new ImplausibleCoordinatesError(path, `${a},${b}`, gridShaped(a, b));
    if (Math.abs(a) > 90) firstIsLon = true;
    if (Math.abs(b) > 90) secondIsLon = true;
    if (firstIsLon && secondIsLon) throw new ImplausibleCoordinatesError(path, `${a},${b}`, gridShaped(a, b));
  }
  return firstIsLon ? 'lonLat' : secondIsLon ? 'latLon' : 'ambiguous';
}
