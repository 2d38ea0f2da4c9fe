import type { Pin } from '../../efa/records.js';
import { idText, sharingProviderOf } from '../../efa/sharing.js';
import { instantOf, num, objectAt, text } from '../answer-values.js';
import { objectKey } from '../snapshot-relation.js';
import type { VehicleRow } from './table.js';

/**
 * CoordInfo records as vehicle snapshot rows. efa-api.md shows no field of a sharing vehicle or of the
 * vehicle-detail answer, so each value is read from the names deployments and the simulator use,
 * and is null where none is present (never guessed).
 */

type Attrs = Readonly<Record<string, unknown>>;

function bool(...values: unknown[]): boolean | null {
  for (const v of values) {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === '1' || v === 1) return true;
    if (v === 'false' || v === '0' || v === 0) return false;
  }
  return null;
}

/** The slot-count fields of the schema's `station` (carSlots, bikeSlots, eBikeSlots, combinedSlots, ...). */
const SLOT_FIELD = /Slots$/;

/** A station's slot counts as sent, with its number and out-of-service flag; null when it has none. */
function stationSlots(station: Attrs): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(station)) if (SLOT_FIELD.test(k) && typeof v === 'object' && v !== null) out[k] = v;
  if (station.stNum !== undefined) out.stNum = station.stNum;
  if (station.oOS !== undefined) out.oOS = station.oOS;
  return Object.keys(out).length > 0 ? out : null;
}

/** Whether `at` lies in one of the schema's availability intervals ({from, to}, dateTime). */
function inInterval(list: unknown, at: Date): boolean {
  if (!Array.isArray(list)) return false;
  return list.some((i: unknown) => {
    if (typeof i !== 'object' || i === null) return false;
    const from = instantOf((i as Attrs).from);
    const to = instantOf((i as Attrs).to);
    return (from === null || from <= at) && (to === null || at < to) && (from !== null || to !== null);
  });
}

/**
 * Availability from the schema's `availabilities` as of `at`: out of order (oOO) or unavailable
 * (unavail) then, false; available (avail) then, true; else null (the answer does not say).
 */
function availableAt(availabilities: Attrs, at: Date | undefined): boolean | null {
  if (at === undefined || Object.keys(availabilities).length === 0) return null;
  if (inInterval(availabilities.oOO, at) || inInterval(availabilities.unavail, at)) return false;
  return inInterval(availabilities.avail, at) ? true : null;
}

/**
 * The schema's single `fuelLevel`: the battery of an electric vehicle, the tank otherwise (a
 * hybrid's level is read as fuel: the schema does not say which of its two it is).
 */
function levels(vehicle: Attrs): { charge: number | null; fuel: number | null } {
  const level = num(vehicle.fuelLevel);
  if (level === null) return { charge: null, fuel: null };
  return text(vehicle.engine)?.toUpperCase() === 'ELECTRIC' ? { charge: level, fuel: null } : { charge: null, fuel: level };
}

/** The schema's enums end in UNDEFINED: it says nothing, so the next name is read. */
const known = (v: unknown): unknown => (v === 'UNDEFINED' ? undefined : v);

/** The vehicle definition of the published schema in a location (`coordInfoDetails.vehicleDetails`), or {}. */
export const vehicleDetailsOf = (a: Attrs): Attrs => objectAt(objectAt(a, 'coordInfoDetails'), 'vehicleDetails');

/**
 * A sharing station alone (published schema: coordInfoDetails.type STATION with a `station` and
 * no `vehicleDetails`) is not a vehicle; its vehicles come as their own locations or in its
 * `station.vehicles[]` (see vehiclesOf).
 */
export function isStationOnly(pin: Pin): boolean {
  const details = objectAt(pin.attrs, 'coordInfoDetails');
  return text(details.type)?.toUpperCase() === 'STATION' && Object.keys(objectAt(details, 'vehicleDetails')).length === 0;
}

/**
 * The vehicles a sharing object stands for: itself, or for a station alone the vehicles it lists
 * (each one carrying the station's details, so its row names the station and its slots), at the
 * station's position where a vehicle has no coord of its own.
 */
export function vehiclesOf(pin: Pin): Pin[] {
  if (!isStationOnly(pin)) return [pin];
  const details = objectAt(pin.attrs, 'coordInfoDetails');
  const station = objectAt(details, 'station');
  const listed = Array.isArray(station.vehicles) ? (station.vehicles as unknown[]) : [];
  return listed.flatMap((v): Pin[] => {
    if (typeof v !== 'object' || v === null) return [];
    const vehicle = v as Attrs;
    const id = idText(vehicle.id);
    if (id === null) return [];
    const coord = Array.isArray(vehicle.coord) && typeof vehicle.coord[0] === 'number' && typeof vehicle.coord[1] === 'number'
      ? { lat: vehicle.coord[0], lon: vehicle.coord[1] }
      : pin.coord;
    const { vehicles: _vehicles, ...stationRest } = station;
    return [{
      type: pin.type,
      id,
      name: text(vehicle.vehModel) ?? pin.name,
      coord,
      motTypes: [],
      attrs: { coordInfoDetails: { ...details, type: 'STATION', station: stationRest, vehicleDetails: vehicle } },
    }];
  });
}

/**
 * A vehicle as seen in a box answer, merged with its vehicle-detail answer when one was fetched.
 * Fields: the published schema's (`coordInfoDetails` with `providerId`, `operatingAreaId`, `type`
 * STATION/FREEFLOATER, `vehicleDetails` = the `vehicle` definition: vehType, engine, fuelLevel,
 * rangeKm, vehModel, availabilities; `station` with its slot counts) first, then the names of the
 * json/legacy answers and the simulator (`specification`, `availability`, or the same flat).
 */
export function toVehicleRow(pin: Pin, detail?: Pin, at?: Date): VehicleRow {
  const a = { ...pin.attrs, ...(detail?.attrs ?? {}) };
  const spec = objectAt(a, 'specification');
  const avail = objectAt(a, 'availability');
  // The detail answer adds to the box answer's details, field by field, never drops them.
  const details = { ...objectAt(pin.attrs, 'coordInfoDetails'), ...(detail ? objectAt(detail.attrs, 'coordInfoDetails') : {}) };
  const vehicle = { ...vehicleDetailsOf(pin.attrs), ...(detail ? vehicleDetailsOf(detail.attrs) : {}) };
  const station = { ...objectAt(objectAt(pin.attrs, 'coordInfoDetails'), 'station'), ...objectAt(details, 'station') };
  const level = levels(vehicle);
  // SharingRefId: <ID>:<OperatorID>:<OpAreaID>.
  const ref = (pin.id ?? '').split(':');
  const fromRef = (i: number): string | null => (ref.length === 3 && ref[i] ? (ref[i] ?? null) : null);
  return {
    vehicleKey: objectKey(pin),
    // The box answer's provider first: the snapshot keys the vehicle by it (efa/sharing.ts).
    providerId: sharingProviderOf(pin) ?? (detail ? sharingProviderOf(detail) : null),
    areaId: idText(vehicle.operatingAreaId, details.operatingAreaId, station.operatingAreaId, a.opAreaId, a.areaId, fromRef(2)),
    kind: text(known(vehicle.vehType), spec.vehicleType, a.vehicleType, a.vehSF, a.kind),
    engine: text(known(vehicle.engine), spec.engineType, a.engineType, a.vehEngineType),
    locationType: text(details.type, a.locationType, a.vehLocType),
    chargePercent: level.charge ?? num(avail.chargePercent, a.chargePercent, a.chargeLevel, a.batteryLevel),
    fuelPercent: level.fuel ?? num(avail.fuelPercent, a.fuelPercent, a.fuelLevel),
    available: availableAt(objectAt(vehicle, 'availabilities'), at) ?? bool(avail.available, a.available, a.isAvailable),
    detailed: detail !== undefined,
    stationId: idText(station.id),
    stationSlots: stationSlots(station),
    model: text(vehicle.vehModel),
    rangeKm: num(vehicle.rangeKm),
    lon: pin.coord.lon,
    lat: pin.coord.lat,
  };
}

/**
 * The SharingRefId (`<ID>:<OperatorID>:<OpAreaID>`) of a vehicle for the detail mode: its id when
 * it has that form, else built from the schema's vehicle id, providerId and operatingAreaId.
 */
export function sharingRefOf(pin: Pin): { id: string; operatorId: string; opAreaId: string } | undefined {
  const parts = (pin.id ?? '').split(':');
  const [id, operatorId, opAreaId] = parts;
  if (parts.length === 3 && id && operatorId && opAreaId) return { id, operatorId, opAreaId };
  const details = objectAt(pin.attrs, 'coordInfoDetails');
  const vehicle = vehicleDetailsOf(pin.attrs);
  const vid = idText(vehicle.id);
  const provider = idText(vehicle.providerId, details.providerId);
  const area = idText(vehicle.operatingAreaId, details.operatingAreaId);
  return vid !== null && provider !== null && area !== null ? { id: vid, operatorId: provider, opAreaId: area } : undefined;
}
