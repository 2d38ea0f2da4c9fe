import { describe, expect, it } from 'vitest';
import { buildStopFinder } from '../../src/efa/request/stop-finder.js';
import { parameterError } from './helpers.js';

describe('StopFinder', () => {
  it('sends text input as type_sf=any', () => {
    expect(buildStopFinder({ type: 'any', name: 'Stuttgart Hbf' })).toEqual([
      ['name_sf', 'Stuttgart Hbf'],
      ['type_sf', 'any'],
    ]);
  });

  it('formats coordinate input lon:lat with type_sf=coord', () => {
    expect(buildStopFinder({ type: 'coord', name: { lon: 9.1, lat: 48.7 } })).toEqual([
      ['name_sf', '9.100000:48.700000:WGS84[dd.ddddd]'],
      ['type_sf', 'coord'],
    ]);
  });

  it('writes every optional parameter under its spec name', () => {
    const params = buildStopFinder({
      type: 'any',
      name: 'de:08111:6118',
      anyMaxSizeHitList: 50,
      anyResSort: 'sorter1',
      anySigWhenPerfectNoOtherMatches: true,
      locationInfoActive: true,
      useHouseNumberList: true,
      useLocalityMainStop: true,
      doNotSearchForStops: true,
      prMinQu: 80,
      anyObjFilter: 2,
      anyOmc: '8111000',
      regionID: 3,
      tryFurtherAnyWithoutLoc: true,
      coord: { lon: 9.18, lat: 48.78 },
      objPrefAl: 12,
      objPrefAm: 2,
      prefStModeAm: [1, 2, 3, 4],
      regPrefAl: 'R1',
      regPrefAm: 7,
      relInf: 0,
      rMethod: 'DISTANCEFROMCENTER',
    });
    expect(params).toEqual([
      ['name_sf', 'de:08111:6118'],
      ['type_sf', 'any'],
      ['anyMaxSizeHitList', '50'],
      ['anyResSort_sf', 'sorter1'],
      ['anySigWhenPerfectNoOtherMatches', '1'],
      ['locationInfoActive', '1'],
      ['useHouseNumberList_sf', '1'],
      ['useLocalityMainStop', '1'],
      ['doNotSearchForStops_sf', '1'],
      ['prMinQu', '80'],
      ['anyObjFilter_sf', '2'],
      ['anyOmc_sf', '8111000'],
      ['regionID_sf', '3'],
      ['tryFurtherAnyWithoutLoc', '1'],
      ['coord', '9.180000:48.780000:WGS84[dd.ddddd]'],
      ['objPrefAl', '12'],
      ['objPrefAm', '2'],
      ['prefStModeAm', '30'],
      ['regPrefAl', 'R1'],
      ['regPrefAm', '7'],
      ['relInf', '0'],
      ['rMethod', 'DISTANCEFROMCENTER'],
    ]);
  });

  it('rejects out-of-range percentages, an empty name and an unknown ranking method', () => {
    expect(parameterError(() => buildStopFinder({ type: 'any', name: 'x', prMinQu: 101 })).parameter).toBe('prMinQu');
    expect(parameterError(() => buildStopFinder({ type: 'any', name: 'x', relInf: -1 })).parameter).toBe('relInf');
    expect(parameterError(() => buildStopFinder({ type: 'any', name: '  ' })).parameter).toBe('name');
    const bad = { type: 'any' as const, name: 'x', rMethod: 'NEAREST' };
    // @ts-expect-error NEAREST is not a ranking method
    expect(parameterError(() => buildStopFinder(bad)).parameter).toBe('rMethod');
  });

  it('rejects a coordinate input out of range and a text where a coordinate belongs', () => {
    expect(parameterError(() => buildStopFinder({ type: 'coord', name: { lon: 200, lat: 48 } })).parameter).toBe('name.lon');
    const text = { type: 'coord' as const, name: 'Hbf' };
    // @ts-expect-error coordinate input must be a coordinate
    expect(parameterError(() => buildStopFinder(text)).parameter).toBe('name');
  });
});
