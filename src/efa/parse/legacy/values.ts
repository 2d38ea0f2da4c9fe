import { isObject, plausibleLonLat, ShapeMismatchError } from '../common.js';

/**
 * Wire helpers of legacy EFA JSON (`outputFormat=JSON` of real servers): every value is a string,
 * coordinates are `"x,y"` text, and a list with a single entry may come as `{ "<item>": {...} }`.
 */

/** The object under `key`, or a ShapeMismatchError: an answer without its envelope is not "no hits". */
export function envelope(body: unknown, key: string): Record<string, unknown> {
  if (!isObject(body)) throw new ShapeMismatchError([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const value = body[key];
  if (!isObject(value)) throw new ShapeMismatchError([key], value === undefined ? 'missing' : `expected an object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  return value;
}

/**
 * A legacy list: an array, the single-hit form `{ "<itemKey>": {...} }` (seen as `dm.points.point`
 * in a real MVV body), or `null` for "no hits" inside an envelope that is otherwise present.
 */
export function legacyList(value: unknown, itemKey: string, path: readonly PropertyKey[]): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value;
  if (isObject(value)) {
    const inner = value[itemKey];
    if (Array.isArray(inner)) return inner;
    if (isObject(inner)) return [inner];
  }
  throw new ShapeMismatchError(path, `expected a list (an array or { "${itemKey}": {...} }), got ${typeof value}`);
}

/**
 * Reads a legacy `"x,y"` coordinate (x = longitude, y = latitude). Grid values such as
 * `4475708.00000,812930.00000` (the server's own map, e.g. MVTT, when `coordOutputFormat` was not
 * sent) fail plausibleLonLat and stop the run: they must never be stored as lon/lat.
 */
export function lonLatText(text: string, path: readonly PropertyKey[]): { lon: number; lat: number } {
  const parts = text.split(',').map((part) => part.trim());
  const [x, y] = parts.length === 2 && parts.every((part) => part !== '') ? parts.map(Number) : [Number.NaN, Number.NaN];
  return plausibleLonLat(x ?? Number.NaN, y ?? Number.NaN, path);
}

export { nameValues } from '../global-id.js';

/** A string that means "no value" in legacy answers (`""`, `"-1"` for ids). */
export function present(value: unknown, absent: readonly string[] = ['']): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  return absent.includes(value.trim()) ? undefined : value;
}
