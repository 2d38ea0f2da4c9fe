import { PARKING, type Pin } from '../efa/records.js';
import type { Job } from '../job/index.js';
import { pointEwkbHex } from '../db/ewkb.js';
import { intArrayLiteral } from '../db/pg-array.js';
import { columnLists, type Column, type Entity } from './entity.js';
import type { TableDefinition } from './table.js';
import { sha1Hex, stableJson } from './hash.js';

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
  /**
   * `attrs` as JSON with its keys sorted: the very text the content hash covers, COPYed as the
   * jsonb column too (jsonb keeps no key order, so it stores what JSON.stringify's text gave).
   */
  readonly attrs_json: string;
  readonly content_hash: string;
}

/** ~1 m: a pin without an id keeps its key while its coordinate jitters in the last digits. */
const keyDecimals = 5;
/** ~1 cm: what counts as "moved" for change detection. */
const geomDecimals = 7;

const round = (x: number, d: number): number => Number(x.toFixed(d));

export function pinKey(pin: Pin): string {
  if (pin.id) return `${pin.type}:${pin.id}`;
  // JSON.stringify of strings and numbers is stableJson's text (no object to sort): contentHash's
  // hash, without its walk, for every pin without an id.
  return `${pin.type}:h:${sha1Hex(JSON.stringify([pin.type, pin.name, round(pin.coord.lon, keyDecimals), round(pin.coord.lat, keyDecimals)])).slice(0, 20)}`;
}

/**
 * The field that describes the query, not the object (`distance` from the search centre changes
 * with every tiling): kept out of the row so a re-tiled night does not rewrite every pin.
 */
const QUERY_RELATIVE = 'distance';

/** A number as JSON.stringify (and so stableJson) writes it. */
const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/**
 * JSON's text of `Number(fixed)`, where `fixed` is toFixed's text of a coordinate: toFixed's own
 * digits without their trailing zeros, instead of formatting the double once more (the shortest
 * round trip of every coordinate was a tenth of toPinRow). Exact where the value has at most 15
 * significant digits (below 1e8 at 7 decimals): a decimal that short is the only one of at most its
 * length that reads back as its double (DBL_DIG), so it is the shortest, the digits Number#toString
 * writes; and at 1e-6 or more Number#toString writes no exponent. Anything else is formatted as before.
 */
export function fixedJson(fixed: string, value: number): string {
  const magnitude = Math.abs(value);
  if (!(magnitude >= 1e-6 && magnitude < 1e8) || !fixed.includes('.')) return jsonNumber(value);
  let end = fixed.length;
  while (fixed.charCodeAt(end - 1) === 48 /* 0 */) end--;
  if (fixed.charCodeAt(end - 1) === 46 /* . */) end--;
  return fixed.slice(0, end);
}

/** The row's fields whose stable JSON the content hash covers (global_id and attrs_json follow from them). */
type HashedFields = Pick<PinRow, 'type' | 'id' | 'name' | 'mot_types' | 'lon' | 'lat'>;

/**
 * stableJson of `{ type, id, name, mot_types, lon, lat, attrs }`, written with its keys in their
 * sorted order, around the attrs' own stable text: that text is then COPYed as is, where it was
 * stringified a second time, and the row object is not walked and its keys not sorted per pin.
 * test/relations/pin-row.test.ts holds it to stableJsonByReplacer's text of the same object.
 */
function hashedText(fields: HashedFields, text: { readonly lon: string; readonly lat: string; readonly attrs: string }): string {
  return (
    `{"attrs":${text.attrs},"id":${fields.id === null ? 'null' : JSON.stringify(fields.id)},` +
    `"lat":${text.lat},"lon":${text.lon},"mot_types":[${fields.mot_types.map(jsonNumber).join(',')}],` +
    `"name":${JSON.stringify(fields.name)},"type":${JSON.stringify(fields.type)}}`
  );
}

/**
 * The pin's attrs without the query-relative field: a rest copy has the same own keys in the same
 * order as the Object.fromEntries of the filtered entries it replaces (an own `__proto__` too), at
 * an eighth of its cost.
 */
function objectAttrs(attrs: Record<string, unknown>): Record<string, unknown> {
  const { [QUERY_RELATIVE]: _queryRelative, ...kept } = attrs;
  return kept;
}

/**
 * The values distinct and in ascending order. Most pins' are so already (a POI's list is empty):
 * those are copied as they are, without a Set and a sort; the rest as before.
 */
function distinctAscending(values: readonly number[]): number[] {
  for (let i = 1; i < values.length; i++) {
    // Not strictly above the one before (NaN included): as before, through a Set and a sort.
    if (!((values[i] ?? Number.NaN) > (values[i - 1] ?? Number.NaN))) return [...new Set(values)].sort((a, b) => a - b);
  }
  return values.slice();
}

function pinRowOf(pin: Pin, attrs: Record<string, unknown>, attrsJson: string): PinRow {
  // round(), with toFixed's text kept for the hashed text.
  const lonFixed = pin.coord.lon.toFixed(geomDecimals);
  const latFixed = pin.coord.lat.toFixed(geomDecimals);
  const lon = Number(lonFixed);
  const lat = Number(latFixed);
  const motTypes = distinctAscending(pin.motTypes);
  const fields: HashedFields = { type: pin.type, id: pin.id ?? null, name: pin.name, mot_types: motTypes, lon, lat };
  // The global id follows from the id and attrs, which the hash covers: it is left out of the hash,
  // so rows written before it existed are not rewritten.
  // A stop's global id (IFOPT / DHID): the parsers read it from each dialect's place for it.
  const globalId = pin.type === 'STOP' ? (pin.globalId ?? null) : null;
  const contentHash = sha1Hex(hashedText(fields, { lon: fixedJson(lonFixed, lon), lat: fixedJson(latFixed, lat), attrs: attrsJson }));
  // Named one by one: a spread of `fields` copied them through a generic path per row.
  return { pin_key: pinKey(pin), type: fields.type, id: fields.id, name: fields.name, mot_types: motTypes, lon, lat, global_id: globalId, attrs, attrs_json: attrsJson, content_hash: contentHash };
}

/**
 * The pin's row. Its text is storable already (no U+0000, no lone surrogate): parseEach made it so
 * where the pin was built (efa/text/storable.ts), so the pin is not walked once more for it here.
 */
export function toPinRow(pin: Pin): PinRow {
  const attrs = objectAttrs(pin.attrs);
  return pinRowOf(pin, attrs, stableJson(attrs));
}

// Sharing vehicles are a time series (efa.vehicle_snapshots, the snapshot sweep), never pins, which
// would churn efa.pins and efa.changes every night. Defined beside the provider rule (efa/sharing.ts).
export { SHARING_VEHICLE_TYPES, isSharingVehicle } from '../efa/sharing.js';

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
  { name: 'attrs', type: 'jsonb', value: (r) => r.attrs_json },
];

/** efa.pins: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const pinsTable: TableDefinition = {
  schema: 'efa',
  name: 'pins',
  comment:
    'Every object of CoordInfo answers (pins[]): stops, POIs, parking, sharing objects, one row per real object however many tiles returned it. Never hard-deleted: deleted_at is set when a complete sweep of its place no longer finds it.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row (for QGIS, GDAL, pg_featureserv, martin).' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) the object belongs to; pin_key is unique within it.' },
    { name: 'pin_key', type: 'text', notNull: true, comment: "Stable key: the EFA id (pins[].id) where present, else 'h:' + 20 hex digits of a SHA-1 of type, name and the coordinate rounded to 5 decimals (~1 m)." },
    { name: 'type', type: 'text', notNull: true, comment: 'CoordInfo pins[].type: STOP, POI_POINT, POI_AREA, BUS_POINT, GIS_POINT, … (the object types of the API).' },
    { name: 'id', type: 'text', comment: 'CoordInfo pins[].id, the EFA object id (stops: the stop id reusable as name_sf / name_sl); NULL when the answer has none (often for POIs).' },
    { name: 'name', type: 'text', notNull: true, comment: 'CoordInfo pins[].name: display name.' },
    { name: 'mot_types', type: 'integer[]', notNull: true, default: "'{}'::integer[]", comment: 'CoordInfo pins[].motTypes (comma-separated means-of-transport ids, stops) as a sorted, distinct integer array; empty when absent.' },
    { name: 'geom', type: 'geometry(Point,4326)', notNull: true, comment: 'CoordInfo pins[].coord {lat, lon} as a Point (lon, lat), EPSG:4326, rounded to 7 decimals (~1 cm).' },
    { name: 'global_id', type: 'text', comment: "A stop's global id (IFOPT / DHID, e.g. de:08111:6008) where the answer carries one (STOP_GLOBAL_ID, gid) or the id has that form; NULL otherwise." },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: 'Every other field of the pin as received (JSON), e.g. locality, parking or vehicle details.' },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row (type, id, name, mot_types, coordinate, attrs); changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the object (efa.runs).' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the object's content (or revived it)." },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: "When a run that swept the object's place completely no longer found it; NULL while it exists. Cleared if it reappears." },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'pins_source_key_uq', sql: 'UNIQUE (source, pin_key)' },
    { name: 'pins_lonlat_chk', sql: 'CHECK (ST_X(geom) BETWEEN -180 AND 180 AND ST_Y(geom) BETWEEN -90 AND 90)' },
  ],
  indexes: [
    { name: 'pins_geom_gix', using: 'gist', on: ['geom'] },
    { name: 'pins_global_id_idx', on: ['global_id'], where: 'global_id IS NOT NULL' },
    { name: 'pins_source_id_idx', on: ['source', 'id'], where: 'id IS NOT NULL' },
    { name: 'pins_source_type_idx', on: ['source', 'type'] },
  ],
  history: { key: 'pin_key', gone: 'deleted_at', label: 'pins' },
};

export const pins: Entity<PinRow> = {
  relation: 'pins',
  table: pinsTable,
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
