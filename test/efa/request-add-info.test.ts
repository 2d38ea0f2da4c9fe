import { describe, expect, it } from 'vitest';
import { buildAddInfo } from '../../src/efa/request/add-info.js';
import { parameterError, values } from './helpers.js';

describe('AddInfo', () => {
  it('no options, no parameters', () => {
    expect(buildAddInfo()).toEqual([]);
  });

  it('writes dates as DD-MM-YYYY and repeats repeatable filters', () => {
    const params = buildAddInfo({
      filterDateValid: ['2024-03-05', new Date(2024, 11, 24)],
      filterPublicationStatus: 'current',
      filterValidIntervalStart: '2024-03-01',
      filterValidIntervalEnd: '2024-03-31',
      filterOMC: [8111000, '8115000'],
      filterOMC_PlaceID: [
        { omc: 8111000, placeId: 1 },
        { omc: 8115000, placeId: 2 },
      ],
      filterLineNumberIntervalStart: 1,
      filterLineNumberIntervalEnd: 999,
      filterMOTType: [1, 5],
      filterPNLineDir: [{ network: 'vvs', line: '10001', direction: 'H' }],
      filterPNLineSub: [
        { network: 'vvs', line: '10001', supplement: ' ' },
        { network: 'vvs', line: '20006', supplement: 'a' },
      ],
      itdLPxx_selLine: ['U6', 'S1'],
      itdLPxx_selOperator: ['SSB'],
      itdLPxx_selStop: ['de:08111:6118', 'de:08111:6008'],
      line: { network: 'vvs', line: '10001', supplement: ' ', direction: 'H', project: 'j24' },
      passedStops: true,
      filterInfoID: ['N1', 'N2'],
      filterInfoType: ['lineInfo', 'stopBlocking'],
      filterProviderCode: ['VVS', 'SSB'],
      filterSourceSystemName: ['DIVA', 'HIM'],
      hideBannerInfo: true,
    });
    expect(params).toEqual([
      ['filterDateValid', '05-03-2024'],
      ['filterDateValid', '24-12-2024'],
      ['filterPublicationStatus', 'current'],
      ['filterValidIntervalStart', '01-03-2024'],
      ['filterValidIntervalEnd', '31-03-2024'],
      ['filterOMC', '8111000:8115000'],
      ['filterOMC_PlaceID', '8111000:1'],
      ['filterOMC_PlaceID', '8115000:2'],
      ['filterLineNumberIntervalStart', '1'],
      ['filterLineNumberIntervalEnd', '999'],
      ['filterMOTType', '1'],
      ['filterMOTType', '5'],
      ['filterPNLineDir', 'vvs:10001:H'],
      ['filterPNLineSub', 'vvs:10001: '],
      ['filterPNLineSub', 'vvs:20006:a'],
      ['itdLPxx_selLine', 'U6'],
      ['itdLPxx_selLine', 'S1'],
      ['itdLPxx_selOperator', 'SSB'],
      ['itdLPxx_selStop', 'de:08111:6118'],
      ['itdLPxx_selStop', 'de:08111:6008'],
      ['line', 'vvs:10001: :H:j24'],
      ['passedStops', '1'],
      ['filterInfoID', 'N1'],
      ['filterInfoID', 'N2'],
      ['filterInfoType', 'lineInfo'],
      ['filterInfoType', 'stopBlocking'],
      ['filterProviderCode', 'VVS'],
      ['filterProviderCode', 'SSB'],
      ['filterSourceSystemName', 'DIVA'],
      ['filterSourceSystemName', 'HIM'],
      ['hideBannerInfo', '1'],
    ]);
  });

  it('component mode splits the day into zero-padded parts', () => {
    expect(buildAddInfo({ filterDateValidComponents: '2024-02-09' })).toEqual([
      ['filterDateValidComponentsActive', '1'],
      ['filterDateValidDay', '09'],
      ['filterDateValidMonth', '02'],
      ['filterDateValidYear', '2024'],
    ]);
  });

  it('history status alone', () => {
    expect(values(buildAddInfo({ filterPublicationStatus: 'history' }), 'filterPublicationStatus')).toEqual(['history']);
  });

  it('rejects bad dates, inverted intervals, passedStops without line, unknown types', () => {
    expect(parameterError(() => buildAddInfo({ filterDateValid: ['05-03-2024'] })).parameter).toBe('filterDateValid[0]');
    expect(parameterError(() => buildAddInfo({ filterDateValid: ['2023-02-29'] })).parameter).toBe('filterDateValid[0]');
    expect(
      parameterError(() => buildAddInfo({ filterValidIntervalStart: '2024-04-01', filterValidIntervalEnd: '2024-03-01' })).parameter,
    ).toBe('filterValidIntervalEnd');
    expect(parameterError(() => buildAddInfo({ passedStops: true })).parameter).toBe('passedStops');
    expect(parameterError(() => buildAddInfo({ filterLineNumberIntervalStart: 0 })).parameter).toBe('filterLineNumberIntervalStart');
    expect(
      parameterError(() => buildAddInfo({ filterLineNumberIntervalStart: 50, filterLineNumberIntervalEnd: 10 })).parameter,
    ).toBe('filterLineNumberIntervalEnd');
    const bad = { filterInfoType: ['disruption'] };
    // @ts-expect-error not a notice type
    expect(parameterError(() => buildAddInfo(bad)).parameter).toBe('filterInfoType[0]');
    expect(
      parameterError(() => buildAddInfo({ filterPNLineDir: [{ network: 'a:b', line: '1', direction: 'H' }] })).parameter,
    ).toBe('filterPNLineDir[0].network');
  });
});
