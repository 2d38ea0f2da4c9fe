import { isObject, plausibleLonLat, RecordProblem } from '../common.js';
import type { LatLonPoint } from '../rings.js';

/**
 * An OpArea `polygon` in any of the forms a deployment may send. No public OpArea body exists, so
 * beside efa-api.md's [lat, lon] points these forms are accepted on the word:
 * - a list of [lat, lon] points, or a list of such rings;
 * - a string of "lat,lon" pairs separated by spaces or semicolons;
 * - a GeoJSON Polygon, whose positions are [lon, lat] (GeoJSON order, not the API's).
 * Every point goes through plausibleLonLat (a grid value stops the run); any other form is a
 * RecordProblem, so the provider becomes a reject. Returns rings of [lat, lon] points.
 */
export function readPolygon(value: unknown, path: readonly PropertyKey[]): LatLonPoint[][] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [pointsFromText(value, path)];
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    if (Array.isArray(value[0]) && Array.isArray(value[0][0])) {
      return value.map((ring, index) => latLonRing(ring, [...path, index]));
    }
    return [latLonRing(value, path)];
  }
  if (isObject(value) && value['type'] === 'Polygon' && Array.isArray(value['coordinates'])) {
    return value['coordinates'].map((ring, index) => lonLatRing(ring, [...path, 'coordinates', index]));
  }
  throw new RecordProblem(path, 'expected [lat, lon] points, a "lat,lon lat,lon ..." string or a GeoJSON Polygon');
}

function numbersOf(point: unknown, path: readonly PropertyKey[]): [number, number] {
  if (!Array.isArray(point) || point.length < 2 || typeof point[0] !== 'number' || typeof point[1] !== 'number') {
    throw new RecordProblem(path, 'expected a point of two numbers');
  }
  return [point[0], point[1]];
}

function latLonRing(ring: unknown, path: readonly PropertyKey[]): LatLonPoint[] {
  if (!Array.isArray(ring)) throw new RecordProblem(path, 'expected a list of [lat, lon] points');
  return ring.map((point, index) => {
    const [lat, lon] = numbersOf(point, [...path, index]);
    plausibleLonLat(lon, lat, [...path, index]);
    return [lat, lon];
  });
}

function lonLatRing(ring: unknown, path: readonly PropertyKey[]): LatLonPoint[] {
  if (!Array.isArray(ring)) throw new RecordProblem(path, 'expected a list of [lon, lat] positions');
  return ring.map((point, index) => {
    const [lon, lat] = numbersOf(point, [...path, index]);
    plausibleLonLat(lon, lat, [...path, index]);
    return [lat, lon];
  });
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;

/** "48.1,9.2 48.2,9.3" or "48.1, 9.2; 48.2, 9.3": with a semicolon, pairs may contain spaces. */
function pointsFromText(text: string, path: readonly PropertyKey[]): LatLonPoint[] {
  const pairs = text.includes(';') ? text.split(';') : text.trim().split(/\s+/);
  return pairs
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair, index) => {
      const [lat = '', lon = '', ...rest] = pair.split(',').map((part) => part.trim());
      if (rest.length > 0 || !NUMBER.test(lat) || !NUMBER.test(lon)) {
        throw new RecordProblem([...path, index], `expected "lat,lon", got "${pair}"`);
      }
      plausibleLonLat(Number(lon), Number(lat), [...path, index]);
      return [Number(lat), Number(lon)];
    });
}
