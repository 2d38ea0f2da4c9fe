import { describe, expect, it } from 'vitest';
import { resolveDuplicatePins, type Pin } from '../../../src/efa/index.js';
import { toParkingRow, toVehicleRow } from '../../../src/relations/index.js';

/**
 * Issue 29.9 and 29.10 at the level of one answer, in the dialects the CLI test does not serve: the
 * provider of a rapidJSON vehicle (coordInfoDetails) keeps vehicle 1 of two providers apart, and a
 * parking figure in text is a number only in the legacy dialect.
 */
const rapidVehicle = (id: string, providerId: number, lon: number): Pin => ({
  type: 'SHARING', id, name: `bike ${id}`, coord: { lon, lat: 48.75 }, motTypes: [],
  attrs: { coordInfoDetails: { type: 'FREEFLOATER', providerId, operatingAreaId: 'a1', vehicleDetails: { id, vehType: 'BIKE', providerId } } },
});

describe('a sharing vehicle is its provider and its id', () => {
  it('keeps vehicle 1 of two rapidJSON providers in one answer, and rejects a second vehicle 1 of one provider with its reason', () => {
    const resolved = resolveDuplicatePins([rapidVehicle('1', 7, 9.1), rapidVehicle('1', 8, 9.2), rapidVehicle('1', 7, 9.3)]);
    expect(resolved.records.map((p) => toVehicleRow(p).providerId)).toEqual(['7', '8']);
    expect(resolved.rejects).toHaveLength(1);
    expect(resolved.rejects[0]?.reason).toMatch(/^duplicate id "1" \(type SHARING, provider "7"\) in one answer/);
  });
});

describe('parking figures are counts of places in [0, capacity]', () => {
  const parking = (attrs: Record<string, unknown>): Pin => ({ type: 'PARKING', id: 'p', name: 'P', coord: { lon: 9.1, lat: 48.7 }, motTypes: [], attrs });

  it('reads text as a number only where the dialect writes every value as text (legacy)', () => {
    const text = parking({ capacity: '20', realtime: { free: '12', occupied: '8' } });
    expect(toParkingRow(text, true)).toMatchObject({ capacity: 20, free: 12, occupied: 8 });
    expect(toParkingRow(text, true).problems).toBeUndefined();
    const strict = toParkingRow(text, false);
    expect(strict).toMatchObject({ capacity: null, free: null, occupied: null });
    expect(strict.problems).toEqual([
      'capacity "20" is text where this dialect sends a number (the published schema types it as a number): not read',
      'realtime.free "12" is text where this dialect sends a number (the published schema types it as a number): not read',
      'realtime.occupied "8" is text where this dialect sends a number (the published schema types it as a number): not read',
    ]);
  });

  it('reads neither of free and occupied that add up to more than the capacity, nor a fraction of a place', () => {
    const row = toParkingRow(parking({ capacity: 10, realtime: { free: 8, occupied: 8 } }));
    expect(row).toMatchObject({ capacity: 10, free: null, occupied: null });
    expect(row.problems).toEqual(['free 8 and occupied 8 places add up to more than the capacity 10: neither is read']);
    const rapid = toParkingRow(parking({ coordInfoDetails: { parkingDataSet: { freePlaces: 2.5, dataSource: 'REALTIME' } }, capacity: 10 }));
    expect(rapid).toMatchObject({ free: null, dataSource: 'REALTIME' });
    expect(rapid.problems).toEqual(['coordInfoDetails.parkingDataSet.freePlaces 2.5 is not a whole number of places']);
  });
});
