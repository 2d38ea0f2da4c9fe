import { repairMojibake } from '../../text/mojibake.js';
import { isObject, plausibleLonLat, ShapeMismatch } from '../common.js';

/**
 * Wire helpers of legacy EFA JSON (`outputFormat=JSON` of real servers): every value is a string,
 * coordinates are `"x,y"` text, and a list with a single entry may come as `{ "<item>": {...} }`.
 */

/** The object under `key`, or a ShapeMismatch: an answer without its envelope is not "no hits". */
export function envelope(body: unknown, key: string): Record<string, unknown> {
  if (!isObject(body)) throw new ShapeMismatch([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const value = body[key];
  if (!isObject(value)) throw new ShapeMismatch([key], value === undefined ? 'missing' : `expected an object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
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
  throw new ShapeMismatch(path, `expected a list (an array or { "${itemKey}": {...} }), got ${typeof value}`);
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

/** Legacy `{ name, value }` lists (`attrs`, `parameters`) as a lookup; later duplicates lose. */
export function nameValues(list: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    if (!isObject(entry) || typeof entry['name'] !== 'string' || out.has(entry['name'])) continue;
    const value = entry['value'];
    out.set(entry['name'], typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  }
  return out;
}

/** A string that means "no value" in legacy answers (`""`, `"-1"` for ids). */
export function present(value: unknown, absent: readonly string[] = ['']): string | undefined {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  return absent.includes(value.trim()) ? undefined : value;
}

function repairValue(value: unknown, counter: { n: number }): unknown {
  if (typeof value === 'string') {
    const fixed = repairMojibake(value);
    if (fixed.repaired) counter.n += 1;
    return fixed.text;
  }
  if (Array.isArray(value)) return value.map((item) => repairValue(item, counter));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = repairValue(inner, counter);
    return out;
  }
  return value;
}

/**
 * Repairs double-encoded UTF-8 in every string of one record (names, places, stateless ids alike,
 * so they stay consistent) and counts the repaired strings in `_mojibakeRepaired`, which lands in
 * the record's attrs. Records without repairs are returned unchanged.
 */
export function repairRecord(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const counter = { n: 0 };
  const fixed = repairValue(raw, counter);
  return counter.n === 0 || !isObject(fixed) ? raw : { ...fixed, _mojibakeRepaired: counter.n };
}
