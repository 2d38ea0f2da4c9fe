import type { Pin } from './records.js';

/**
 * What makes a sharing vehicle's id unique. Providers number their vehicles themselves (1…N, as
 * GBFS feeds do), so an id alone names a vehicle only within its provider: the EFA SharingRefId is
 * `<ID>:<OperatorID>:<OpAreaID>`. Both the answer's duplicate rule (parse/duplicates.ts) and the
 * snapshot rows (src/relations/vehicle-snapshots/row.ts) read the provider here, so they cannot disagree.
 */

/**
 * Object types that are sharing vehicles, as the dialects normalise them (rapidJSON `sharing` →
 * SHARING). The same list is in sql/008_snapshots.sql, which retires vehicle pins stored before.
 */
export const SHARING_VEHICLE_TYPES: readonly string[] = ['SHARING', 'SHARING_VEHICLE', 'VEHICLE', 'CARSHARING', 'BIKESHARING'];

export function isSharingVehicle(pin: Pin): boolean {
  return SHARING_VEHICLE_TYPES.includes(pin.type.toUpperCase());
}

type Attrs = Readonly<Record<string, unknown>>;

const objectAt = (a: Attrs, name: string): Attrs => {
  const v = a[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Attrs) : {};
};

/** An id the schema types as a number (providerId) or text, as text; null when absent or empty. */
export function idText(...values: unknown[]): string | null {
  for (const v of values) {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/**
 * The provider (operator) a sharing vehicle belongs to, as its attributes say: the published
 * rapidJSON schema's `coordInfoDetails` (its `vehicleDetails`, itself, or its `station`), then the
 * json/legacy and simulator names (`operatorId`, `providerId`, `operator`); else the second part of
 * an id of the SharingRefId form. Null when nothing names one.
 */
export function sharingProviderOf(pin: Pick<Pin, 'id' | 'attrs'>): string | null {
  const details = objectAt(pin.attrs, 'coordInfoDetails');
  const ref = (pin.id ?? '').split(':');
  return idText(
    objectAt(details, 'vehicleDetails')['providerId'],
    details['providerId'],
    objectAt(details, 'station')['providerId'],
    pin.attrs['operatorId'],
    pin.attrs['providerId'],
    pin.attrs['operator'],
    ref.length === 3 ? ref[1] : undefined,
  );
}

/** The key one sharing vehicle has within one snapshot: its provider and its id (provider '' when none is named). */
export const sharingVehicleKey = (providerId: string | null, id: string): string => `${providerId ?? ''}\u0000${id}`;
