/**
 * The rapidjson profile where no sample shows the case: grid coordinates, mojibake, broken records
 * and envelopes, pin kinds other than the sampled ones, gateway messages and every OpArea polygon form.
 */
import { describe, expect, it } from 'vitest';
import { rapidJsonDialect } from '../../../src/efa/dialects/rapidjson.js';
import { ImplausibleCoordinatesError, ShapeMismatchError } from '../../../src/efa/parse/common.js';
import { pinTypeOf } from '../../../src/efa/parse/rapidjson/locations.js';
import { thrown } from '../helpers.js';

const { parse } = rapidJsonDialect;
const stop = (over: Record<string, unknown> = {}) => ({ id: 'de:08111:6008', name: 'Stuttgart Hbf', type: 'stop', coord: [48.7843, 9.1818], ...over });


describe('coordinates', () => {
  it('an answer in a grid (no coordOutputFormat) stops with ImplausibleCoordinatesError at the first such path', () => {
    const grid = stop({ coord: [5402186, 3513912] });
    const body = { version: '10.6', locations: [stop(), grid, grid, grid] };
    const error = thrown(() => parse.coordInfo(body));
    expect(error).toBeInstanceOf(ImplausibleCoordinatesError);
    expect((error as ImplausibleCoordinatesError).path).toEqual(['locations', 1, 'coord']);
    // A single hit in the shape of a grid is the grid too (a StopFinder answer has one location).
    expect(thrown(() => parse.stopFinder({ locations: [{ ...grid, matchQuality: 1 }] }))).toBeInstanceOf(ImplausibleCoordinatesError);
  });

  it('a stray implausible coordinate is a reject with its reason, the rest of the answer kept (issue 56)', () => {
    const { records, rejects } = parse.coordInfo({ version: '10.6', locations: [stop(), stop({ id: 'a', coord: [91.5, 9.1] }), stop({ id: 'b' })] });
    expect(records.map((r) => r.id)).toEqual(['de:08111:6008', 'b']);
    expect(rejects.map((r) => r.reason)).toEqual(["locations[1].coord: 9.1,91.5 is not a WGS84 coordinate: a stray value, not the server's grid (1 of 3 records of the answer)"]);
    // One grid-shaped value among WGS84 ones, and a single hit at [95, 9], are rejects too.
    expect(parse.coordInfo({ locations: [stop(), stop({ coord: [5402186, 3513912] })] }).rejects).toHaveLength(1);
    expect(parse.stopFinder({ locations: [{ ...stop({ coord: [95, 9] }), matchQuality: 1 }] }).rejects).toHaveLength(1);
    // Three of five is most of the answer: the grid, whatever the values' shape.
    const stray = stop({ coord: [95, 9] });
    expect(thrown(() => parse.coordInfo({ locations: [stop(), stop(), stray, stray, stray] }))).toBeInstanceOf(ImplausibleCoordinatesError);
  });

  it('a malformed coord is one reject, the rest is kept', () => {
    const { records, rejects } = parse.coordInfo({ locations: [stop(), stop({ coord: [48.7] }), stop({ name: undefined })] });
    expect(records).toHaveLength(1);
    expect(rejects.map((r) => r.reason)).toEqual([expect.stringMatching(/^locations\[1\]\.coord/), expect.stringMatching(/^locations\[2\]\.name/)]);
  });
});

describe('text and kinds', () => {
  it('keeps a double-encoded name as sent, its reading in attrs.nameRepaired; repairs and counts free text', () => {
    const { records } = parse.coordInfo({ locations: [stop({ name: 'MÃ¼nchen Hbf' })] });
    expect(records[0]).toMatchObject({ name: 'MÃ¼nchen Hbf', attrs: { nameRepaired: 'München Hbf' } });
    expect(records[0]?.attrs['_mojibakeRepaired']).toBeUndefined();
    const notices = parse.addInfo({
      infos: { current: [{ id: 'n', type: 'lineInfo', subtitle: 'StÃ¶rung', content: 'Ã–PNV â€“ Info' }], historic: [] },
    });
    expect(notices.records[0]).toMatchObject({ title: 'Störung', text: 'ÖPNV – Info', attrs: { _mojibakeRepaired: 2 } });
  });

  it('maps rapidJSON kinds to the EFA object types', () => {
    expect(pinTypeOf('stop', undefined)).toBe('STOP');
    expect(pinTypeOf('platform', undefined)).toBe('BUS_POINT');
    expect(pinTypeOf('poi', { POI_DRAW_CLASS_TYPE: 'POINT' })).toBe('POI_POINT');
    expect(pinTypeOf('poi', undefined)).toBe('POI_POINT');
    expect(pinTypeOf('poi', { POI_DRAW_CLASS_TYPE: 'AREA' })).toBe('POI_AREA');
    expect(pinTypeOf('gisPoint', undefined)).toBe('GIS_POINT');
    expect(pinTypeOf('parking', undefined)).toBe('PARKING');
    expect(pinTypeOf('sharing', undefined)).toBe('SHARING');
  });

  it('MOT types come from productClasses, else modes, sorted and unique', () => {
    const { records } = parse.coordInfo({ locations: [stop({ productClasses: [5, 1, 5] }), stop({ modes: [11, 2] })] });
    expect(records.map((p) => p.motTypes)).toEqual([[1, 5], [2, 11]]);
  });
});

describe('envelopes and messages', () => {
  it('a missing or wrong list is a ShapeMismatchError, never an empty answer', () => {
    expect(thrown(() => parse.coordInfo({ version: '10.6', systemMessages: [] }))).toBeInstanceOf(ShapeMismatchError);
    expect(thrown(() => parse.servingLines({ servingLines: [] }))).toBeInstanceOf(ShapeMismatchError);
    expect(thrown(() => parse.addInfo({ infos: [] }))).toBeInstanceOf(ShapeMismatchError);
    expect(thrown(() => parse.addInfo({ infos: {} }))).toBeInstanceOf(ShapeMismatchError);
    expect(thrown(() => parse.addInfo({ infos: { current: {} } }))).toBeInstanceOf(ShapeMismatchError);
    expect(parse.addInfo({ infos: { current: [] } })).toEqual({ records: [], rejects: [] });
  });

  it('a notice without id is a reject; one without validity has no dates', () => {
    const { records, rejects } = parse.addInfo({ infos: { current: [{ type: 'lineInfo' }, { id: 7, type: 'generalInfo' }] } });
    expect(rejects).toHaveLength(1);
    expect(records).toEqual([{ id: '7', type: 'generalInfo', title: '', text: '', lines: [], attrs: { publication: 'current' } }]);
  });

  it('validity windows: the days as written, instants from offsets or from wall time in the deployment\'s zone', () => {
    const notice = (validity: unknown[]) => ({ infos: { current: [{ id: 'n1', type: 'lineInfo', timestamps: { validity } }] } });
    const windows = [{ from: '2025-06-14T14:00:00Z', to: '2025-06-20T10:00:00' }, { from: '2025-06-16T08:00:00+10:00' }];
    const sydney = parse.addInfo(notice(windows), { timeZone: 'Australia/Sydney' }).records[0];
    // 10:00 without an offset is Sydney's wall clock (+10:00).
    expect(sydney).toMatchObject({ validFrom: '2025-06-14', validTo: '2025-06-20' });
    expect(sydney?.attrs).toMatchObject({ validFromAt: '2025-06-14T14:00:00.000Z', validToAt: '2025-06-20T00:00:00.000Z' });
    // No zone known: the days as written, and no instant for the zone-less end.
    const unknown = parse.addInfo(notice(windows)).records[0];
    expect(unknown).toMatchObject({ validFrom: '2025-06-14', validTo: '2025-06-20' });
    expect(unknown?.attrs).toMatchObject({ validFromAt: '2025-06-14T14:00:00.000Z' });
    expect(unknown?.attrs).not.toHaveProperty('validToAt');
  });

  it('the TfNSW gateway forms: systemMessages.responseMessages and error.message', () => {
    const body = { version: '10.6', systemMessages: { responseMessages: [{ type: 'warning', code: -4050, text: 'no trip' }] }, error: { message: 'bad key' } };
    expect(rapidJsonDialect.messages(body)).toEqual([
      { type: 'warning', code: '-4050', text: 'no trip', attrs: {} },
      { type: 'error', text: 'bad key', attrs: {} },
    ]);
  });
});

describe('OpArea polygons', () => {
  const square = [[48.7, 9.1], [48.7, 9.2], [48.8, 9.2], [48.8, 9.1], [48.7, 9.1]];
  const expected = [[[9.1, 48.7], [9.2, 48.7], [9.2, 48.8], [9.1, 48.8], [9.1, 48.7]]];
  const provider = (polygon: unknown) => ({ providers: [{ id: 'p1', name: 'Bikes', vehicleType: 'BIKE', areas: [{ id: 'a1', name: 'City', polygon }] }] });
  const ringsOf = (polygon: unknown) => parse.opArea(provider(polygon)).records[0]?.areas[0]?.polygons?.[0] ?? null;

  it('reads [lat, lon] points, "lat,lon" strings and GeoJSON [lon, lat] to the same rings', () => {
    expect(ringsOf(square)).toEqual(expected);
    expect(ringsOf([square])).toEqual(expected);
    expect(ringsOf(square.map(([lat, lon]) => `${lat},${lon}`).join(' '))).toEqual(expected);
    expect(ringsOf(square.map(([lat, lon]) => `${lat}, ${lon}`).join('; '))).toEqual(expected);
    expect(ringsOf({ type: 'Polygon', coordinates: [square.map(([lat, lon]) => [lon, lat])] })).toEqual(expected);
    expect(ringsOf(undefined)).toBeNull();
  });

  it('closes an open ring and says so', () => {
    const area = parse.opArea(provider(square.slice(0, 4))).records[0]?.areas[0];
    expect(area).toMatchObject({ polygons: [expected], ringsClosedByParser: true });
  });

  it('rejects any other form with the area path', () => {
    for (const polygon of [{ type: 'MultiPolygon', coordinates: [] }, 'north of the river', 42, [[48.7, 'x']], [[48.7, 9.1], [48.7, 9.1]]]) {
      const { records, rejects } = parse.opArea(provider(polygon));
      expect(records).toEqual([]);
      expect(rejects[0]?.reason).toMatch(/^providers\[0\]\.areas\[0\]\.polygon/);
    }
  });

  it('a grid polygon stops the run', () => {
    const error = thrown(() => parse.opArea(provider([[5402186, 3513912], [5402186, 3513999], [5402199, 3513999]])));
    expect(error).toBeInstanceOf(ImplausibleCoordinatesError);
    expect((error as ImplausibleCoordinatesError).path).toEqual(['providers', 0, 'areas', 0, 'polygon', 0]);
  });
});
