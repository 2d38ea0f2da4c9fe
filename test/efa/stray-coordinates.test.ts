import { describe, expect, it } from 'vitest';
import { dialects } from '../../src/efa/dialects/index.js';
import { ImplausibleCoordinatesError, inServerGrid } from '../../src/efa/parse/common.js';
import { MAX_FIELD_CHARS, MAX_TEXT_CHARS } from '../../src/efa/parse/limits.js';
import { thrown } from './helpers.js';

/**
 * Issue 56 point 2: a wrong coordinate system is a property of the answer, not of one record. The
 * same rule in every dialect that reads coordinates itself (legacy, rapidJSON, XML; the json dialect
 * range-checks coordinates as fields, so there an implausible one is a reject already).
 */
describe('inServerGrid', () => {
  it('is most of the answer and at least three, or a small answer wholly in the shape of a grid', () => {
    expect(inServerGrid(1, 148, false)).toBe(false);
    expect(inServerGrid(2, 3, true)).toBe(false);
    expect(inServerGrid(3, 5, false)).toBe(true);
    expect(inServerGrid(3, 6, false)).toBe(false);
    expect(inServerGrid(1, 1, true)).toBe(true);
    expect(inServerGrid(1, 1, false)).toBe(false);
  });
});

const legacyPin = (id: string, coords: string) => ({ desc: `Stop ${id}`, type: 'STOP', id, coords, attrs: [] });

describe('legacy', () => {
  it('one pin at 9.1,91.5 among WGS84 ones is a reject; a grid answer stops the run', () => {
    const { records, rejects } = dialects.legacy.parse.coordInfo({ pins: [legacyPin('1', '9.1,48.7'), legacyPin('2', '9.1,91.5'), legacyPin('3', '9.2,48.8')] });
    expect(records.map((p) => p.id)).toEqual(['1', '3']);
    expect(rejects.map((r) => r.reason)).toEqual(["pins[1].coords: 9.1,91.5 is not a WGS84 coordinate: a stray value, not the server's grid (1 of 3 records of the answer)"]);
    const grid = ['4475708.00000,812930.00000', '4475800.00000,812990.00000', '4475900.00000,813000.00000'].map((c, i) => legacyPin(String(i), c));
    expect(thrown(() => dialects.legacy.parse.coordInfo({ pins: grid }))).toBeInstanceOf(ImplausibleCoordinatesError);
  });

  it('an OpArea provider with one vertex of 1e308 is a reject, the other provider kept', () => {
    const provider = (id: string, polygon: unknown) => ({ id, name: id, vehicleType: 'BIKE', areas: [{ id: 'a', name: 'A', polygon }] });
    const ring = [[48.7, 9.1], [48.8, 9.1], [48.8, 9.2], [48.7, 9.1]];
    const { records, rejects } = dialects.legacy.parse.opArea({ providers: [provider('ok', ring), provider('bad', [[48.7, 9.1], [1e308, 9.1], [48.8, 9.2], [48.7, 9.1]])] });
    expect(records.map((p) => p.id)).toEqual(['ok']);
    expect(rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/^providers\[1\]\.areas\[0\]\.polygon\[1\]: 9\.1,1e\+308 is not a WGS84 coordinate: a stray value/)]);
  });
});

describe('rapidJSON OpArea', () => {
  it('an operating zone with one vertex of 1e308 is a reject, the other areas stored', () => {
    const area = (id: string, first: number) => ({
      id, name: id, operator: { id: 'op', name: 'Op' },
      operatingZone: { type: 'Polygon', coordinates: [[[9.1, 48.7], [first, 48.8], [9.2, 48.8], [9.1, 48.7]]] },
    });
    const { records, rejects } = dialects.rapidjson.parse.opArea({ version: '10.6', operatingAreas: [area('a', 9.1), area('b', 1e308), area('c', 9.15)] });
    expect(records.flatMap((p) => p.areas.map((a) => a.id))).toEqual(['a', 'c']);
    expect(rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/^operatingAreas\[1\]\.operatingZone.*1e\+308.* is not a WGS84 coordinate: a stray value/)]);
  });
});

describe('notice bounds', () => {
  it('a title over the name bound or a text over MAX_TEXT_CHARS is a reject naming the field; at the bound it is kept', () => {
    const notice = (id: string, title: string, text: string) => ({ id, type: 'lineInfo', title, text, lines: [] });
    const { records, rejects } = dialects.json.parse.addInfo({
      infos: [
        notice('a', 't'.repeat(MAX_FIELD_CHARS + 1), 'x'),
        notice('b', 'T', 'x'.repeat(MAX_TEXT_CHARS + 1)),
        notice('c', 't'.repeat(MAX_FIELD_CHARS), 'x'.repeat(MAX_TEXT_CHARS)),
      ],
    });
    expect(records.map((n) => n.id)).toEqual(['c']);
    expect(rejects.map((r) => r.reason)).toEqual([
      `infos[0]: title is ${MAX_FIELD_CHARS + 1} characters long (at most ${MAX_FIELD_CHARS})`,
      `infos[1]: text is ${MAX_TEXT_CHARS + 1} characters long (at most ${MAX_TEXT_CHARS})`,
    ]);
  });
});
