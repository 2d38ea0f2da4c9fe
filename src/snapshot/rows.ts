import type { ParkingRow, VehicleRow } from '../db/snapshots.js';
import type { Pin } from '../efa/index.js';
import { pinKey } from '../entities/pins.js';

/**
 * CoordInfo records as snapshot rows. efa-api.md shows no field of a sharing vehicle or of the
 * vehicle-detail answer, so each value is read from the names deployments and the simulator use,
 * and is null where none is present (never guessed).
 */

export function isParking(pin: Pin): boolean {
  return pin.type.toUpperCase() === 'PARKING';
}

type Attrs = Readonly<Record<string, unknown>>;

const objectAt = (a: Attrs, name: string): Attrs => {
  const v = a[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Attrs) : {};
};

function text(...values: unknown[]): string | null {
  for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v;
  return null;
}

function num(...values: unknown[]): number | null {
  for (const v of values) {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  }
  return null;
}

function int(...values: unknown[]): number | null {
  const n = num(...values);
  return n === null ? null : Math.round(n);
}

function bool(...values: unknown[]): boolean | null {
  for (const v of values) {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === '1' || v === 1) return true;
    if (v === 'false' || v === '0' || v === 0) return false;
  }
  return null;
}

/** The key of an object: its id as sent, else the kind and a hash of name and place (as efa.pins). */
export const objectKey = (pin: Pin): string => pin.id ?? pinKey(pin);

/**
 * A vehicle as seen in a box answer, merged with its vehicle-detail answer when one was fetched
 * (`specification`, `availability` objects, or the same fields flat).
 */
export function toVehicleRow(pin: Pin, detail?: Pin): VehicleRow {
  const a = { ...pin.attrs, ...(detail?.attrs ?? {}) };
  const spec = objectAt(a, 'specification');
  const avail = objectAt(a, 'availability');
  // SharingRefId: <ID>:<OperatorID>:<OpAreaID>.
  const ref = (pin.id ?? '').split(':');
  const fromRef = (i: number): string | null => (ref.length === 3 && ref[i] ? (ref[i] ?? null) : null);
  return {
    vehicleKey: objectKey(pin),
    providerId: text(a.operatorId, a.providerId, a.operator, fromRef(1)),
    areaId: text(a.opAreaId, a.areaId, fromRef(2)),
    kind: text(spec.vehicleType, a.vehicleType, a.vehSF, a.kind),
    engine: text(spec.engineType, a.engineType, a.vehEngineType),
    locationType: text(a.locationType, a.vehLocType),
    chargePercent: num(avail.chargePercent, a.chargePercent, a.chargeLevel, a.batteryLevel),
    fuelPercent: num(avail.fuelPercent, a.fuelPercent, a.fuelLevel),
    available: bool(avail.available, a.available, a.isAvailable),
    detailed: detail !== undefined,
    lon: pin.coord.lon,
    lat: pin.coord.lat,
  };
}

export function toParkingRow(pin: Pin): ParkingRow {
  const a = pin.attrs;
  const realtime = objectAt(a, 'realtime');
  return {
    parkingKey: objectKey(pin),
    name: pin.name === '' ? null : pin.name,
    kind: int(a.parkingObjectType),
    capacity: int(a.capacity, a.totalSpaces),
    free: int(realtime.free, a.freeSpaces),
    occupied: int(realtime.occupied, a.occupiedSpaces),
    lon: pin.coord.lon,
    lat: pin.coord.lat,
  };
}
