import { describe, expect, it } from 'vitest';
import { buildOpArea } from '../../src/efa/request/op-area.js';
import { parameterError } from './helpers.js';

describe('OpArea', () => {
  it('ALL with provider/area index pairs, vehicle kind and geometry', () => {
    expect(
      buildOpArea({
        opareaSM: 'ALL',
        providers: [{ vehPId: 'nextbike' }, { vehPId: 'stadtmobil', opAreaId: 'S-Mitte' }, { vehPId: 'stadtmobil', opAreaId: 'S-Ost' }],
        vehSF: 'BIKE',
        operatingZoneGeometry: true,
      }),
    ).toEqual([
      ['opareaSM', 'ALL'],
      ['vehPId0', 'nextbike'],
      ['vehPId1', 'stadtmobil'],
      ['opAreaId1', 'S-Mitte'],
      ['vehPId2', 'stadtmobil'],
      ['opAreaId2', 'S-Ost'],
      ['vehSF', 'BIKE'],
      ['operatingZoneGeometry', '1'],
    ]);
  });

  it('RADIAL sends coordRadius lon:lat (with or without radius) and opASR=1', () => {
    expect(buildOpArea({ opareaSM: 'RADIAL', coordRadius: { coord: { lon: 9.1, lat: 48.7 } } })).toEqual([
      ['opareaSM', 'RADIAL'],
      ['coordRadius', '9.100000:48.700000:WGS84[dd.ddddd]'],
      ['opASR', '1'],
    ]);
    expect(buildOpArea({ opareaSM: 'RADIAL', coordRadius: { coord: { lon: 9.1, lat: 48.7 }, radiusM: 1200 } })).toContainEqual([
      'coordRadius',
      '9.100000:48.700000:WGS84[dd.ddddd]:1200',
    ]);
  });

  it('repeats vehSF when several kinds are asked for', () => {
    const params = buildOpArea({ opareaSM: 'ALL', vehSF: ['BIKE', 'CAR'] });
    expect(params.filter(([name]) => name === 'vehSF')).toEqual([
      ['vehSF', 'BIKE'],
      ['vehSF', 'CAR'],
    ]);
  });

  it('RADIAL requires coordRadius; ALL takes none', () => {
    const noCentre = { opareaSM: 'RADIAL' as const };
    // @ts-expect-error coordRadius is required in RADIAL mode
    expect(parameterError(() => buildOpArea(noCentre)).parameter).toBe('coordRadius');
    const centreInAll = { opareaSM: 'ALL' as const, coordRadius: { coord: { lon: 9, lat: 48 } } };
    // Structurally assignable in TypeScript, so only the runtime schema can catch it.
    expect(parameterError(() => buildOpArea(centreInAll)).parameter).toBe('coordRadius');
    expect(
      parameterError(() => buildOpArea({ opareaSM: 'RADIAL', coordRadius: { coord: { lon: 9, lat: -95 } } })).parameter,
    ).toBe('coordRadius.coord.lat');
    expect(parameterError(() => buildOpArea({ opareaSM: 'ALL', providers: [{ vehPId: '' }] })).parameter).toBe(
      'providers[0].vehPId',
    );
  });
});
