import { idText, sharingProviderOf } from '../sharing.js';
import type { Coord, Pin, Reject, SharingStation, SlotCounts } from '../records.js';
import { isObject, type Parsed } from './common.js';
import { fieldLimitProblem } from './limits.js';

/**
 * Sharing stations, read off the objects a CoordInfo answer already carries: the published
 * rapidJSON schema puts a station in `properties.coordInfoDetails.station` of a sharing location,
 * both of a station listed alone (`coordInfoDetails.type` STATION, no `vehicleDetails`) and of a
 * vehicle standing at one. The rapidJSON parser flattens `properties` into a pin's attrs and the
 * json dialect keeps every extra field there, so one reader serves both dialects: no request is
 * made for a station. The legacy dialect carries none: its `attrs` are flat name/value texts, which
 * cannot hold the station object, and no legacy answer with sharing objects is known.
 *
 * A station is read once per answer (provider, id): its own listing wins over a vehicle's copy,
 * which the vehicle-detail mode may send shortened. One that cannot be keyed or whose counts are
 * impossible is a reject with its reason, never dropped in silence.
 */

/** More slots of one kind than any station has: a count above it is a broken value, not a station. */
export const MAX_STATION_SLOTS = 10_000;

/** The schema's slot fields: `carSlots`, `eBikeSlots`, `combinedSlots`, ... → car, eBike, combined. */
const SLOT_FIELD = /^([A-Za-z]+)Slots$/;

type Attrs = Readonly<Record<string, unknown>>;

const objectAt = (a: Attrs, name: string): Attrs => {
  const v = a[name];
  return isObject(v) ? v : {};
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** Why a station cannot be stored; its message is the reject's reason. */
class StationProblem extends Error {}

/** A count as sent: absent is null; anything but a whole number from 0 to MAX_STATION_SLOTS is a problem. */
function count(slots: Attrs, field: string, where: string): number | null {
  const v = slots[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new StationProblem(`${where}.${field}: expected a whole number, got ${JSON.stringify(v)}`);
  if (v < 0) throw new StationProblem(`${where}.${field}: negative count ${v}`);
  if (v > MAX_STATION_SLOTS) throw new StationProblem(`${where}.${field}: ${v} is more than ${MAX_STATION_SLOTS} slots of one kind`);
  return v;
}

function slotsOf(station: Attrs): Record<string, SlotCounts> {
  const out: Record<string, SlotCounts> = {};
  for (const [field, value] of Object.entries(station)) {
    const kind = SLOT_FIELD.exec(field)?.[1];
    if (kind === undefined || value === undefined || value === null) continue;
    if (!isObject(value)) throw new StationProblem(`station.${field}: expected an object of counts, got ${JSON.stringify(value)}`);
    const where = `station.${field}`;
    out[kind] = { total: count(value, 'totalSlots', where), empty: count(value, 'emptySlots', where), freeVehicles: count(value, 'freeVehicles', where) };
  }
  return out;
}

/** rapidJSON writes [lat, lon]; an object names its axes. Null when the station sends no position. */
function coordOf(v: unknown): Coord | null {
  if (v === undefined || v === null) return null;
  const [lat, lon] = Array.isArray(v) ? [v[0], v[1]] : isObject(v) ? [v['lat'], v['lon']] : [undefined, undefined];
  if (typeof lat !== 'number' || typeof lon !== 'number' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
    throw new StationProblem(`station.coord: ${JSON.stringify(v)} is not a WGS84 [lat, lon] position`);
  }
  return { lat, lon };
}

/** Whether the object is the station itself rather than a vehicle standing at it. */
function isStationListing(details: Attrs): boolean {
  return text(details['type'])?.toUpperCase() === 'STATION' && Object.keys(objectAt(details, 'vehicleDetails')).length === 0;
}

/**
 * Fields read into columns, and those that change by the minute (the vehicles standing there, the
 * time of the reading): neither is kept in attrs, so an unchanged station hashes alike every night.
 */
const MAPPED = new Set(['id', 'name', 'coord', 'providerId', 'operatingAreaId', 'stNum', 'addr', 'oOS', 'vehicles', 'lastUpdate']);

function stationOf(pin: Pin, details: Attrs, station: Attrs): SharingStation {
  const listing = isStationListing(details);
  // A station listed alone may be named by its location's id (a SharingRefId's first part).
  const ownId = listing ? (pin.id ?? '').split(':')[0] : undefined;
  const id = idText(station['id'], ownId);
  if (id === null) throw new StationProblem('station.id: missing (a station without an id cannot be keyed)');
  const providerId = sharingProviderOf(pin);
  if (providerId === null) throw new StationProblem('station.providerId: missing (a station is keyed by its provider)');
  // Without the station's own position, the location of the station or of a vehicle standing at
  // it (type STATION) is where the station is; a free floater's is not.
  const atStation = text(details['type'])?.toUpperCase() === 'STATION';
  const coord = coordOf(station['coord']) ?? (atStation ? pin.coord : null);
  if (coord === null) throw new StationProblem('station.coord: missing (and the object carrying it does not stand at the station)');
  const oos = station['oOS'];
  if (oos !== undefined && oos !== null && typeof oos !== 'boolean') throw new StationProblem(`station.oOS: expected true or false, got ${JSON.stringify(oos)}`);
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(station)) if (!MAPPED.has(k) && !SLOT_FIELD.test(k)) attrs[k] = v;
  const providerName = text(station['providerName']);
  const areaId = idText(station['operatingAreaId'], details['operatingAreaId']);
  const number = idText(station['stNum']);
  const address = text(station['addr']);
  return {
    providerId,
    id,
    name: text(station['name']) ?? (listing ? pin.name : ''),
    coord,
    ...(areaId === null ? {} : { operatingAreaId: areaId }),
    ...(number === null ? {} : { number }),
    ...(address === undefined ? {} : { address }),
    slots: slotsOf(station),
    ...(typeof oos === 'boolean' ? { outOfService: oos } : {}),
    attrs: { ...attrs, ...(providerName === undefined ? {} : { providerName }) },
  };
}

const keyOf = (s: Pick<SharingStation, 'providerId' | 'id'>): string => `${s.providerId}\u0000${s.id}`;

/** The stations the answer's objects carry, one per provider and id, and the ones that could not be read. */
export function readSharingStations(pins: readonly Pin[]): Parsed<SharingStation> {
  const found = new Map<string, { station: SharingStation; listing: boolean }>();
  const rejects: Reject[] = [];
  for (const pin of pins) {
    const details = objectAt(pin.attrs, 'coordInfoDetails');
    const raw = details['station'];
    if (raw === undefined || raw === null) continue;
    const received = { type: pin.type, ...(pin.id === undefined ? {} : { id: pin.id }), name: pin.name, coordInfoDetails: details };
    try {
      if (!isObject(raw)) throw new StationProblem(`station: expected an object, got ${JSON.stringify(raw)}`);
      const station = stationOf(pin, details, raw);
      const tooLong = fieldLimitProblem(station);
      if (tooLong !== undefined) throw new StationProblem(tooLong);
      const listing = isStationListing(details);
      const key = keyOf(station);
      const before = found.get(key);
      if (before === undefined || (listing && !before.listing)) found.set(key, { station, listing });
    } catch (error) {
      if (!(error instanceof StationProblem)) throw error;
      rejects.push({ operation: 'coordInfo', reason: `sharing station: ${error.message}`, raw: received });
    }
  }
  return { records: [...found.values()].map((f) => f.station), rejects };
}
