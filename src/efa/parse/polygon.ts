import { isObject, plausibleLonLat, RecordProblemError } from './common.js';
import { areaPointCount, MAX_AREA_POINTS } from './limits.js';
import type { LatLonPoint } from './rings.js';

/**
 * An OpArea `polygon`, for every dialect. efa-api.md shows a ring of [lat, lon] points; no real
 * OpArea body in any dialect was available, so the forms other EFA outputs use are accepted too:
 * - a ring of [lat, lon] points (numbers or numeric strings; extra elements such as an altitude
 *   are ignored), or a list of such rings (holes, islands);
 * - a string of "lat,lon" pairs separated by spaces or semicolons, or a list of such strings;
 * - a GeoJSON Polygon, whose positions are [lon, lat] (GeoJSON order, not the API's).
 * Anything else is a RecordProblemError, so the provider becomes a reject. Returns rings of [lat, lon]
 * points for `toClosedRing`, [] for an empty polygon.
 */

type Path = readonly PropertyKey[];

/**
 * What a point outside WGS84 means. `stop`: the deployment answered in its grid, which stops the
 * run (ImplausibleCoordinatesError from plausibleLonLat). `reject`: the json dialect range-checks every
 * coordinate as a field, so there the value rejects its record at the offending number.
 */
export type Implausible = 'stop' | 'reject';

/** A decimal number as text; hex, `Infinity` or an empty part are not coordinates. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function readPolygon(value: unknown, path: Path, implausible: Implausible = 'stop'): LatLonPoint[][] {
  tooManyPoints(value, path);
  const reader = new Reader(implausible);
  if (typeof value === 'string') {
    const ring = reader.text(value, path);
    return ring.length === 0 ? [] : [ring];
  }
  if (isObject(value)) return reader.geoJson(value, path);
  if (!Array.isArray(value)) {
    throw new RecordProblemError(path, `expected [lat, lon] points, "lat,lon lat,lon ..." text or a GeoJSON Polygon, got ${typeof value}`);
  }
  if (value.length === 0) return [];
  const first: unknown = value[0];
  if (typeof first === 'string') return value.map((ring, r) => reader.text(ring, [...path, r]));
  // The nesting is decided by the first element, so a bad point is reported at its own path.
  if (Array.isArray(first) && Array.isArray(first[0])) return value.map((ring, r) => reader.ring(ring, 'latLon', [...path, r]));
  return [reader.ring(value, 'latLon', path)];
}

/** A polygon beyond MAX_AREA_POINTS is a reject before a point of it is read (its raw record kept cut). */
export function tooManyPoints(value: unknown, path: Path): void {
  const count = areaPointCount(value);
  if (count > MAX_AREA_POINTS) {
    throw new RecordProblemError(path, `more than ${MAX_AREA_POINTS} points in one area geometry: not read (a hostile or broken answer); the raw record is kept cut`, 3);
  }
}

/** Which array element holds the latitude: the API writes [lat, lon], GeoJSON [lon, lat]. */
type Order = 'latLon' | 'lonLat';

class Reader {
  constructor(private readonly implausible: Implausible) {}

  geoJson(value: Record<string, unknown>, path: Path): LatLonPoint[][] {
    const rings = value['coordinates'];
    if (value['type'] !== 'Polygon' || !Array.isArray(rings)) throw new RecordProblemError(path, 'expected a GeoJSON Polygon');
    return rings.map((ring, r) => this.ring(ring, 'lonLat', [...path, 'coordinates', r]));
  }

  ring(ring: unknown, order: Order, path: Path): LatLonPoint[] {
    const form = order === 'latLon' ? '[lat, lon] point' : '[lon, lat] position';
    if (!Array.isArray(ring)) throw new RecordProblemError(path, `expected a list of ${form}s`);
    return ring.map((point: unknown, i) => {
      const at = [...path, i];
      if (!Array.isArray(point) || point.length < 2) throw new RecordProblemError(at, `expected a ${form}`);
      const [latIndex, lonIndex] = order === 'latLon' ? [0, 1] : [1, 0];
      const lat = numberAt(point[latIndex], [...at, latIndex]);
      const lon = numberAt(point[lonIndex], [...at, lonIndex]);
      return this.checked(lat, lon, at, [...at, latIndex], [...at, lonIndex]);
    });
  }

  /** "48.1,9.2 48.2,9.3" or "48.1, 9.2; 48.2, 9.3": spaces around the comma belong to the pair. */
  text(text: unknown, path: Path): LatLonPoint[] {
    if (typeof text !== 'string') throw new RecordProblemError(path, 'expected a "lat,lon lat,lon ..." string');
    const pairs = text.replace(/\s*,\s*/g, ',').split(/[\s;]+/).filter((pair) => pair !== '');
    return pairs.map((pair, i) => {
      const at = [...path, i];
      const parts = pair.split(',');
      if (parts.length !== 2) throw new RecordProblemError(at, `expected "lat,lon", got "${pair}"`);
      return this.checked(numberAt(parts[0], at), numberAt(parts[1], at), at, at, at);
    });
  }

  private checked(lat: number, lon: number, at: Path, latAt: Path, lonAt: Path): LatLonPoint {
    if (this.implausible === 'reject') {
      if (!(Math.abs(lat) <= 90)) throw new RecordProblemError(latAt, `latitude ${lat} is outside [-90, 90]`);
      if (!(Math.abs(lon) <= 180)) throw new RecordProblemError(lonAt, `longitude ${lon} is outside [-180, 180]`);
    }
    const checked = plausibleLonLat(lon, lat, at);
    return [checked.lat, checked.lon];
  }
}

function numberAt(value: unknown, at: Path): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && NUMBER.test(value.trim())) return Number(value);
  throw new RecordProblemError(at, `expected a number, got ${typeof value === 'string' ? `"${value}"` : typeof value}`);
}
