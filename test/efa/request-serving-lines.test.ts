import { describe, expect, it } from 'vitest';
import { buildServingLinesAtStop, buildServingLinesByName } from '../../src/efa/request/serving-lines.js';
import { parameterError } from './helpers.js';

describe('ServingLines', () => {
  it('mode=odv names the stop with the _sl point input; no line types means 0 (all)', () => {
    expect(buildServingLinesAtStop({ stopId: 'de:08111:6118' })).toEqual([
      ['mode', 'odv'],
      ['type_sl', 'any'],
      ['name_sl', 'de:08111:6118'],
      ['lineReqType', '0'],
    ]);
  });

  it('mode=line sends lineName, the lineReqType bitmask and exclMOT_<id>', () => {
    expect(buildServingLinesByName({ lineName: 'S1', lineReqType: ['STT', 'ROB', 'StationTT'], exclMOT: [5, 7] })).toEqual([
      ['mode', 'line'],
      ['lineName', 'S1'],
      ['lineReqType', '26'],
      ['exclMOT_5', '1'],
      ['exclMOT_7', '1'],
    ]);
    expect(buildServingLinesByName({ lineName: 'U6', lineReqType: ['TTB'] })).toContainEqual(['lineReqType', '4']);
  });

  it('rejects an empty stop id, an unknown line type and a MOT id out of range', () => {
    expect(parameterError(() => buildServingLinesAtStop({ stopId: '' })).parameter).toBe('stopId');
    const bad = { lineName: 'S1', lineReqType: ['ALL'] };
    // @ts-expect-error ALL is not a line type
    expect(parameterError(() => buildServingLinesByName(bad)).parameter).toBe('lineReqType[0]');
    expect(parameterError(() => buildServingLinesByName({ lineName: 'S1', exclMOT: [99] })).parameter).toBe('exclMOT[0]');
  });
});
