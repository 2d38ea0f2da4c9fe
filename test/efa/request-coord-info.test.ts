import { describe, expect, it } from 'vitest';
import { buildCoordInfoBox, buildCoordInfoCircle } from '../../src/efa/request/coord-info.js';
import { buildVehicleDetail } from '../../src/efa/request/vehicle-detail.js';
import { parameterError, values } from './helpers.js';

describe('CoordInfo circle', () => {
  it('writes coord lon:lat, inclFilter and filter blocks with their index', () => {
    const params = buildCoordInfoCircle({
      coord: { lon: 9.1, lat: 48.7 },
      filters: [
        { type: 'STOP', radius: 500, inclMOT: [1, 2, 3], exclMOT: [5] },
        { type: 'POI_POINT', radius: 250, exclLayers: ['park', 'wood'], inclDrawClasses: [7, 'x'], inclPOIH: [3] },
      ],
      max: 500,
      deadline: '2024-03-05',
      mapName: 'WGS84[dd.ddddd]',
      purpose: 4,
      fltrParkObj: true,
    });
    expect(params).toEqual([
      ['coord', '9.100000:48.700000:WGS84[dd.ddddd]'],
      ['inclFilter', '1'],
      ['type_0', 'STOP'],
      ['radius_0', '500'],
      ['inclMOT_0', '1:2:3'],
      ['exclMOT_0', '5'],
      ['type_1', 'POI_POINT'],
      ['radius_1', '250'],
      ['exclLayers_1', 'park:wood'],
      ['inclDrawClasses_1', '7:x'],
      ['inclPOIH_1', '3'],
      ['max', '500'],
      ['deadline', '20240305'],
      ['mapName', 'WGS84[dd.ddddd]'],
      ['purpose', '4'],
      ['fltrParkObj', '1'],
    ]);
  });

  it('sends nothing for options left out or switched off', () => {
    const params = buildCoordInfoCircle({ coord: { lon: 9.1, lat: 48.7 }, filters: [{ type: 'ANY' }], fltrParkObj: false });
    expect(params).toEqual([
      ['coord', '9.100000:48.700000:WGS84[dd.ddddd]'],
      ['inclFilter', '1'],
      ['type_0', 'ANY'],
    ]);
  });

  it('rejects bad coordinates naming the option', () => {
    expect(parameterError(() => buildCoordInfoCircle({ coord: { lon: 9.1, lat: 91 }, filters: [{ type: 'ANY' }] })).parameter).toBe(
      'coord.lat',
    );
    const nan = parameterError(() => buildCoordInfoCircle({ coord: { lon: Number.NaN, lat: 48 }, filters: [{ type: 'ANY' }] }));
    expect(nan.parameter).toBe('coord.lon');
    expect(nan.operation).toBe('coordInfo');
    expect(nan.message).toMatch(/^coordInfo: invalid coord\.lon/);
  });

  it('rejects an unknown object type, a missing filter, a bad radius and unknown keys', () => {
    const badType = { coord: { lon: 9, lat: 48 }, filters: [{ type: 'BUS_STOP' }] };
    // @ts-expect-error BUS_STOP is not an object type
    expect(parameterError(() => buildCoordInfoCircle(badType)).parameter).toBe('filters[0].type');
    expect(parameterError(() => buildCoordInfoCircle({ coord: { lon: 9, lat: 48 }, filters: [] })).parameter).toBe('filters');
    expect(
      parameterError(() => buildCoordInfoCircle({ coord: { lon: 9, lat: 48 }, filters: [{ type: 'STOP', radius: -1 }] })).parameter,
    ).toBe('filters[0].radius');
    const extra = { coord: { lon: 9, lat: 48 }, filters: [{ type: 'STOP' }], maxHits: 3 };
    // @ts-expect-error maxHits is not an option
    expect(parameterError(() => buildCoordInfoCircle(extra)).parameter).toBe('maxHits');
  });

  it('rejects a MOT list item holding a colon', () => {
    const error = parameterError(() =>
      buildCoordInfoCircle({ coord: { lon: 9, lat: 48 }, filters: [{ type: 'POI_POINT', exclLayers: ['a:b'] }] }),
    );
    expect(error.parameter).toBe('filters[0].exclLayers[0]');
  });
});

describe('CoordInfo box', () => {
  it('sends the bare boundingBox flag and the LU/RL corners', () => {
    const params = buildCoordInfoBox({
      bbox: [9.05, 48.7, 9.3, 48.85],
      filters: [{ type: 'ANY' }],
      parkingParkRideInclusion: 'INCLUDE',
      parkObjInfo: true,
      parkObjInfoRealtime: true,
    });
    expect(params).toEqual([
      ['boundingBox', null],
      ['boundingBoxLU', '9.050000:48.850000:WGS84[dd.ddddd]'],
      ['boundingBoxRL', '9.300000:48.700000:WGS84[dd.ddddd]'],
      ['inclFilter', '1'],
      ['type_0', 'ANY'],
      ['parkingParkRideInclusion', 'INCLUDE'],
      ['parkObjInfo', '1'],
      ['parkObjInfoRealtime', '1'],
    ]);
  });

  it('writes every parking filter', () => {
    const params = buildCoordInfoBox({
      bbox: [9.05, 48.7, 9.3, 48.85],
      filters: [{ type: 'STOP' }],
      parkingBBox: [9.1, 48.75, 9.2, 48.8],
      parkingObjectType: ['multiStorey', 'zone', 'chargingPoint'],
      parkingCharge: 'free',
      parkingBikeRideInclusion: 'EXCLUSIVE',
    });
    expect(params.slice(5)).toEqual([
      ['parkingSearchMethod', 'BB'],
      ['parkingBB', '1'],
      ['parkingBBLU', '9.100000:48.800000:WGS84[dd.ddddd]'],
      ['parkingBBRL', '9.200000:48.750000:WGS84[dd.ddddd]'],
      ['parkingObjectType', '41'],
      ['parkingCharge', 'free'],
      ['parkingBikeRideInclusion', 'EXCLUSIVE'],
    ]);
    const all = buildCoordInfoBox({ bbox: [9, 48, 9.1, 48.1], filters: [{ type: 'STOP' }], parkingObjectType: 'all' });
    expect(values(all, 'parkingObjectType')).toEqual(['-1']);
  });

  it('rejects parkObjInfoRealtime without parkObjInfo', () => {
    const error = parameterError(() =>
      buildCoordInfoBox({ bbox: [9, 48, 9.1, 48.1], filters: [{ type: 'ANY' }], parkObjInfoRealtime: true }),
    );
    expect(error.parameter).toBe('parkObjInfoRealtime');
    expect(error.message).toContain('requires parkObjInfo');
    expect(() =>
      buildCoordInfoCircle({ coord: { lon: 9, lat: 48 }, filters: [{ type: 'ANY' }], parkObjInfo: false, parkObjInfoRealtime: true }),
    ).toThrow(/parkObjInfoRealtime/);
  });

  it('rejects an inverted box and a radius in a box filter', () => {
    expect(parameterError(() => buildCoordInfoBox({ bbox: [9.3, 48.7, 9.05, 48.85], filters: [{ type: 'ANY' }] })).parameter).toBe(
      'bbox',
    );
    const withRadius = { bbox: [9, 48, 9.1, 48.1] as const, filters: [{ type: 'STOP' as const, radius: 100 }] };
    // @ts-expect-error radius is for circle searches only
    expect(parameterError(() => buildCoordInfoBox(withRadius)).parameter).toBe('filters[0].radius');
  });
});

describe('CoordInfo vehicle detail', () => {
  it('builds SharingRefId from its three parts and repeats the repeatable filters', () => {
    const params = buildVehicleDetail({
      sharingRef: { id: 'V42', operatorId: 'OP7', opAreaId: 'A1' },
      vehAtStation: true,
      vehSpec: true,
      vehAvail: true,
      vehEngineType: ['ELECTRIC', 'HYBRID'],
      vehLocType: ['STATION', 'FREEFLOATER'],
      vehSF: ['BIKE', 'CAR'],
    });
    expect(params).toEqual([
      ['coordReqType', 'VEHICLEDETAIL'],
      ['vehDetail', '1'],
      ['vehSM', 'ID'],
      ['SharingRefId', 'V42:OP7:A1'],
      ['vehAtStation', '1'],
      ['vehSpec', '1'],
      ['vehAvail', '1'],
      ['vehEngineType', 'ELECTRIC'],
      ['vehEngineType', 'HYBRID'],
      ['vehLocType0', 'STATION'],
      ['vehLocType1', 'FREEFLOATER'],
      ['vehSF', 'BIKE'],
      ['vehSF', 'CAR'],
    ]);
  });

  it('rejects a reference part that is empty or holds a colon', () => {
    expect(
      parameterError(() => buildVehicleDetail({ sharingRef: { id: 'V:1', operatorId: 'OP', opAreaId: 'A' } })).parameter,
    ).toBe('sharingRef.id');
    expect(
      parameterError(() => buildVehicleDetail({ sharingRef: { id: 'V', operatorId: '', opAreaId: 'A' } })).parameter,
    ).toBe('sharingRef.operatorId');
  });
});
