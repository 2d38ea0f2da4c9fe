import { describe, expect, it } from 'vitest';
import { EfaParameterError } from '../../src/efa/errors.js';
import { boxCorners, formatCoord, formatCoordRadius } from '../../src/efa/format/coord.js';
import { dateComponents, formatAddInfoDate, formatDeadline } from '../../src/efa/format/date.js';
import { indexedEach, suffixed, underscored } from '../../src/efa/format/indexed.js';
import { bitmask, joinColon, motBitmask } from '../../src/efa/format/lists.js';
import { toQueryString, toSearchParams } from '../../src/efa/params.js';

function thrown(fn: () => unknown): EfaParameterError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EfaParameterError) return error;
    throw error;
  }
  throw new Error('expected an EfaParameterError');
}

describe('formatCoord', () => {
  it('writes longitude first, six decimals, WGS84[dd.ddddd]', () => {
    expect(formatCoord({ lon: 9.1, lat: 48.7 })).toBe('9.100000:48.700000:WGS84[dd.ddddd]');
    expect(formatCoord({ lon: -0.1234567, lat: -33.8568 })).toBe('-0.123457:-33.856800:WGS84[dd.ddddd]');
  });

  it('spells a tiny negative as 0', () => {
    expect(formatCoord({ lon: -0.0000001, lat: 0 })).toBe('0.000000:0.000000:WGS84[dd.ddddd]');
  });

  it('accepts the extremes', () => {
    expect(formatCoord({ lon: 180, lat: -90 })).toBe('180.000000:-90.000000:WGS84[dd.ddddd]');
  });

  it.each([
    [{ lon: 9, lat: 90.5 }, 'coord.lat'],
    [{ lon: 9, lat: -91 }, 'coord.lat'],
    [{ lon: 180.01, lat: 48 }, 'coord.lon'],
    [{ lon: Number.NaN, lat: 48 }, 'coord.lon'],
    [{ lon: 9, lat: Number.POSITIVE_INFINITY }, 'coord.lat'],
  ])('rejects %o naming %s', (point, parameter) => {
    const error = thrown(() => formatCoord(point));
    expect(error.parameter).toBe(parameter);
    expect(error.retryable).toBe(false);
  });

  it('names the caller’s parameter', () => {
    expect(thrown(() => formatCoord({ lon: 9, lat: 99 }, 'boundingBoxLU')).parameter).toBe('boundingBoxLU.lat');
  });
});

describe('formatCoordRadius', () => {
  it('appends the radius only when given', () => {
    expect(formatCoordRadius({ lon: 9.1, lat: 48.7 })).toBe('9.100000:48.700000:WGS84[dd.ddddd]');
    expect(formatCoordRadius({ lon: 9.1, lat: 48.7 }, 750)).toBe('9.100000:48.700000:WGS84[dd.ddddd]:750');
  });

  it('rejects a fractional or non-positive radius', () => {
    expect(thrown(() => formatCoordRadius({ lon: 9.1, lat: 48.7 }, 0)).parameter).toBe('coordRadius.radiusM');
    expect(thrown(() => formatCoordRadius({ lon: 9.1, lat: 48.7 }, 2.5)).parameter).toBe('coordRadius.radiusM');
  });
});

describe('boxCorners', () => {
  it('upper-left is (minLon, maxLat), lower-right is (maxLon, minLat)', () => {
    expect(boxCorners([9.05, 48.7, 9.3, 48.85])).toEqual({
      upperLeft: '9.050000:48.850000:WGS84[dd.ddddd]',
      lowerRight: '9.300000:48.700000:WGS84[dd.ddddd]',
    });
  });

  it('rejects an inverted box', () => {
    expect(thrown(() => boxCorners([9.3, 48.7, 9.05, 48.85])).message).toContain('minLon');
    expect(thrown(() => boxCorners([9.05, 48.85, 9.3, 48.7])).message).toContain('minLat');
  });
});

describe('dates', () => {
  it('deadline is YYYYMMDD, AddInfo dates are DD-MM-YYYY', () => {
    expect(formatDeadline('2024-03-05')).toBe('20240305');
    expect(formatAddInfoDate('2024-03-05')).toBe('05-03-2024');
  });

  it('reads Date objects as local calendar days', () => {
    const date = new Date(2025, 11, 31, 23, 59);
    expect(formatDeadline(date)).toBe('20251231');
    expect(formatAddInfoDate(date)).toBe('31-12-2025');
  });

  it('splits components with zero padding', () => {
    expect(dateComponents('2024-02-09')).toEqual({ day: '09', month: '02', year: '2024' });
  });

  it('rejects impossible days, other formats and invalid Dates', () => {
    expect(thrown(() => formatDeadline('2023-02-29')).message).toContain('no such day');
    expect(thrown(() => formatAddInfoDate('05-03-2024', 'filterDateValid')).parameter).toBe('filterDateValid');
    expect(thrown(() => formatDeadline(new Date('nope'))).parameter).toBe('deadline');
  });
});

describe('indexed names, lists and bitmasks', () => {
  it('spells both index styles', () => {
    expect(underscored('type', 0)).toBe('type_0');
    expect(suffixed('vehPId', 2)).toBe('vehPId2');
    expect(indexedEach('vehLocType', ['STATION', 'FREEFLOATER'])).toEqual([
      ['vehLocType0', 'STATION'],
      ['vehLocType1', 'FREEFLOATER'],
    ]);
  });

  it('joins with colons and refuses parts that contain one', () => {
    expect(joinColon([1, 2, 'x'], 'inclMOT')).toBe('1:2:x');
    expect(thrown(() => joinColon(['a:b'], 'filterOMC')).parameter).toBe('filterOMC');
  });

  it('ORs flags (duplicates count once)', () => {
    expect(bitmask({ a: 2, b: 4, c: 16 } as const, ['a', 'c', 'a'])).toBe(18);
    expect(bitmask({ a: 2 } as const, [])).toBe(0);
    expect(motBitmask([1, 2, 3, 4], 'prefStModeAm')).toBe(30);
    expect(thrown(() => motBitmask([31], 'prefStModeAm')).parameter).toBe('prefStModeAm');
  });
});

describe('query strings', () => {
  it('keeps order, repeats names, leaves flags bare and encodes values', () => {
    const query = toQueryString([
      ['boundingBox', null],
      ['vehSF', 'CAR'],
      ['vehSF', 'BIKE'],
      ['name_sf', 'Hbf Süd & Co'],
    ]);
    expect(query).toBe('boundingBox&vehSF=CAR&vehSF=BIKE&name_sf=Hbf+S%C3%BCd+%26+Co');
    const search = toSearchParams([['vehSF', 'CAR'], ['vehSF', 'BIKE'], ['boundingBox', null]]);
    expect(search.getAll('vehSF')).toEqual(['CAR', 'BIKE']);
    expect(search.get('boundingBox')).toBe('');
  });
});
