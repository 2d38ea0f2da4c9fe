import { PARKING, type Pin } from '../efa/records.js';
import type { Job } from '../job/index.js';
import { pointEwkbHex } from '../db/ewkb.js';
import { intArrayLiteral } from '../db/pg-array.js';
import { columnLists, json, type Column, type Entity } from './entity.js';
import { contentHash, stripNul } from './hash.js';

/**
 * efa.pins: every CoordInfo object (stops, POIs, parking, …), and stops resolved by StopFinder.
 * Key: the kind and the EFA id (`STOP:1000001`), so a STOP and a POI answering with the same id
 * are two objects; without an id, a hash of kind, name and the rounded coordinate.
 * Deletion scope: the pin types the job sweeps, its MOT filters, its region, and only where a
 * CoordInfo tile of the run that owns the place was complete (efa.gone_pins).
 */
export interface PinRow {
  readonly pin_key: string;
  readonly type: string;
  readonly id: string | null;
  readonly name: string;
  readonly mot_types: readonly number[];
  readonly lon: number;
  readonly lat: number;
  readonly global_id: string | null;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

/** ~1 m: a pin without an id keeps its key while its coordinate jitters in the last digits. */
const keyDecimals = 5;
/** ~1 cm: what counts as "moved" for change detection. */
const geomDecimals = 7;

const round = (x: number, d: number): number => Number(x.toFixed(d));

export function pinKey(pin: Pin): string {
  if (pin.id) return `${pin.type}:${pin.id}`;
  return `${pin.type}:h:${contentHash([pin.type, pin.name, round(pin.coord.lon, keyDecimals), round(pin.coord.lat, keyDecimals)]).slice(0, 20)}`;
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
  // The global id follows from the id and attrs, which the hash covers: it is left out of the hash,
  // so rows written before it existed are not rewritten.
  // A stop's global id (IFOPT / DHID): the parsers read it from each dialect's place for it.
  const globalId = clean.type === 'STOP' ? (clean.globalId ?? null) : null;
  return { pin_key: pinKey(clean), ...row, global_id: globalId, content_hash: contentHash(row) };
}

/**
 * Object types that are sharing vehicles, as the dialects normalise them (rapidJSON `sharing` →
 * SHARING). Vehicles move every few minutes: they are a time series (efa.vehicle_snapshots, the
 * snapshot sweep), never pins, which would churn efa.pins and efa.changes every night. The same
 * list is in sql/008_snapshots.sql, which retires vehicle pins stored before.
 */
export const SHARING_VEHICLE_TYPES: readonly string[] = ['SHARING', 'SHARING_VEHICLE', 'VEHICLE', 'CARSHARING', 'BIKESHARING'];

export function isSharingVehicle(pin: Pin): boolean {
  return SHARING_VEHICLE_TYPES.includes(pin.type.toUpperCase());
}

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/** The stored pin types a CoordInfo sweep asks for: ANY is every kind but parking, which answers its own switches. */
export function sweptPinTypes(cfg: CoordSweep): { any: boolean; types: string[] } {
  return { any: cfg.types.includes('ANY'), types: [...cfg.types.filter((t) => t !== 'ANY'), ...(cfg.parking ? [PARKING] : [])] };
}

/** efa.pins' columns besides its key, hash and run columns. */
const pinColumns: readonly Column<PinRow>[] = [
  { name: 'type', type: 'text', value: (r) => r.type },
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'name', type: 'text', value: (r) => r.name },
  { name: 'mot_types', type: 'integer[]', value: (r) => intArrayLiteral(r.mot_types) },
  // Hex EWKB of the row's doubles, staged and COPYed alike: the server reads it without parsing text.
  { name: 'geom', type: 'geometry', value: (r) => pointEwkbHex(r.lon, r.lat) },
  { name: 'global_id', type: 'text', value: (r) => r.global_id },
  { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
];

export const pins: Entity<PinRow> = {
  relation: 'pins',
  table: 'efa.pins',
  key: 'pin_key',
  goneColumn: 'deleted_at',
  keyOf: (r) => r.pin_key,
  hashOf: (r) => r.content_hash,
  after: [],
  goneAfter: [],
  ...columnLists(pinColumns, { direct: true }),
  scopeOf: (job) => {
    const coord = job.sweeps.coord;
    if (!coord) return undefined;
    const { any, types } = sweptPinTypes(coord);
    return {
      types,
      any,
      inclMOT: coord.inclMOT ?? null,
      exclMOT: coord.exclMOT ?? null,
      // Parking objects were all looked for only when no kind filter narrowed the search.
      parkingAll: coord.parking !== undefined && coord.parking.objectTypes === 'all',
    };
  },
};
