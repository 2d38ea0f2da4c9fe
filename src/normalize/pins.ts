import type { Pin } from '../efa/records.js';
import { contentHash, stripNul } from './hash.js';

/** One `efa.pins` row before it meets the database. */
export interface PinRow {
  readonly pin_key: string;
  readonly type: string;
  readonly id: string | null;
  readonly name: string;
  readonly mot_types: readonly number[];
  readonly lon: number;
  readonly lat: number;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

/** ~1 m: a pin without an id keeps its key while its coordinate jitters in the last digits. */
const keyDecimals = 5;
/** ~1 cm: what counts as "moved" for change detection. */
const geomDecimals = 7;

const round = (x: number, d: number): number => Number(x.toFixed(d));

/**
 * The stable key of a pin: its EFA id where it has one; otherwise a hash of type, name and the
 * rounded coordinate (POIs often have no id).
 */
export function pinKey(pin: Pin): string {
  if (pin.id) return pin.id;
  return `h:${contentHash([pin.type, pin.name, round(pin.coord.lon, keyDecimals), round(pin.coord.lat, keyDecimals)]).slice(0, 20)}`;
}

/**
 * Fields that describe the query, not the object (`distance` from the search centre changes with
 * every tiling): kept out of the row so a re-tiled night does not rewrite every pin.
 */
const queryRelative = ['distance'];

export function toPinRow(pin: Pin): PinRow {
  const clean = stripNul(pin);
  const attrs = Object.fromEntries(Object.entries(clean.attrs).filter(([k]) => !queryRelative.includes(k)));
  const lon = round(clean.coord.lon, geomDecimals);
  const lat = round(clean.coord.lat, geomDecimals);
  const motTypes = [...new Set(clean.motTypes)].sort((a, b) => a - b);
  const row = { type: clean.type, id: clean.id ?? null, name: clean.name, mot_types: motTypes, lon, lat, attrs };
  return { pin_key: pinKey(clean), ...row, content_hash: contentHash(row) };
}
