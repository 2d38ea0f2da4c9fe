import { PARKING, type Pin } from '../../efa/records.js';
import { int } from '../answer-values.js';
import { objectKey } from '../snapshot-relation.js';
import { checkedParkingFigures } from './figures.js';
import type { ParkingRow } from './table.js';

export function isParking(pin: Pin): boolean {
  return pin.type.toUpperCase() === PARKING;
}

/**
 * A parking object as a snapshot row. Its figures are checked (figures.ts): one that is
 * impossible, or text where the dialect sends numbers, is stored as NULL and named in `problems`,
 * which the sweep writes to efa.rejects with the record as received.
 */
export function toParkingRow(pin: Pin, textNumbers = false, timeZone?: string): ParkingRow {
  const { figures, problems } = checkedParkingFigures(pin.attrs, textNumbers, timeZone);
  return {
    parkingKey: objectKey(pin),
    name: pin.name === '' ? null : pin.name,
    kind: int(pin.attrs.parkingObjectType),
    ...figures,
    lon: pin.coord.lon,
    lat: pin.coord.lat,
    ...(problems.length > 0 ? { problems } : {}),
  };
}
