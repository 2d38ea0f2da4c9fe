/**
 * Parts of the legacy dialect for which NO real body exists (AddInfo, OpArea, empty answers):
 * hand-written bodies after the issue's description, a third-party parser of Linz AG's ADDINFO
 * answers, and efa-api.md. Plus detect() against the other dialects' real samples.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { legacyDialect } from '../../../src/efa/dialects/legacy.js';
import { ImplausibleCoordinatesError, ShapeMismatchError } from '../../../src/efa/parse/common.js';
import { thrown } from '../helpers.js';

const parse = legacyDialect.parse;
const itd = (year: string, month: string, day: string, hour = '0', minute = '0') => ({ itdDate: { year, month, day, weekday: '1' }, itdTime: { hour, minute } });
const notice = {
  infoID: '11892_LL_ICSLAG', seqID: '1', type: 'lineInfo', priority: 'normal', publish: '1',
  infoLink: { infoLinkText: 'L 191 Verlegung', subtitle: 'L 191 – Verlegung Hauptplatz', content: '<p>L191 wird umgeleitet.</p>', infoLinkURL: 'http://x' },
  validityPeriod: [
    { itdDateTime_From: itd('2026', '5', '1', '5'), itdDateTime_To: itd('2026', '5', '10', '23', '59') },
    { itdDateTime_From: itd('2026', '4', '28'), itdDateTime_To: itd('2026', '5', '2') },
  ],
  concernedLines: [{ number: '191', name: 'Stadtteilbus 191', diva: { network: 'lil', line: '191', supplement: ' ', dir: 'H' } }],
};
const addInfo = (entries: unknown) => ({ parameters: [{ name: 'serverID', value: 'X' }], additionalInformation: { travelInformations: { travelInformation: entries } } });


describe('legacy AddInfo (inferred shape, no real sample)', () => {
  it('maps infoID, type, infoLink, priority, the whole validity range and diva line keys', () => {
    const { records, rejects } = parse.addInfo(addInfo([notice]));
    expect(rejects).toEqual([]);
    expect(records).toEqual([{
      id: '11892_LL_ICSLAG', type: 'lineInfo', title: 'L 191 – Verlegung Hauptplatz', text: '<p>L191 wird umgeleitet.</p>',
      validFrom: '2026-04-28', validTo: '2026-05-10', lines: ['lil:191: :H'], severity: 'normal',
      attrs: expect.objectContaining({ seqID: '1', publish: '1', infoLink: notice.infoLink }) as unknown,
    }]);
  });

  it('reads itdDate + itdTime in the deployment\'s zone (ParseContext.timeZone): the earliest start and latest end as instants', () => {
    const { records } = parse.addInfo(addInfo([notice]), { timeZone: 'Europe/Vienna' });
    // 2026-04-28 00:00 and 2026-05-10 23:59 in Vienna (summer time, +02:00).
    expect(records[0]?.attrs).toMatchObject({ validFromAt: '2026-04-27T22:00:00.000Z', validToAt: '2026-05-10T21:59:00.000Z' });
    expect(records[0]).toMatchObject({ validFrom: '2026-04-28', validTo: '2026-05-10' });
    // Without a zone, or with a time that is none, the days stay and no instant is made up.
    expect(parse.addInfo(addInfo([notice])).records[0]?.attrs).not.toHaveProperty('validFromAt');
    const odd = { ...notice, validityPeriod: { itdDateTime_From: itd('2026', '5', '1', '24', 'x'), itdDateTime_To: itd('-1', '-1', '-1', '-1', '-1') } };
    const parsed = parse.addInfo(addInfo([odd]), { timeZone: 'Europe/Vienna' });
    expect(parsed.rejects).toEqual([]);
    expect(parsed.records[0]).toMatchObject({ validFrom: '2026-05-01' });
    expect(parsed.records[0]?.attrs).not.toHaveProperty('validFromAt');
    expect(parsed.records[0]?.attrs).not.toHaveProperty('validToAt');
  });

  it('accepts one notice as an object, validityPeriod as an object, an open end (-1) and lines without diva', () => {
    const single = {
      ...notice, infoID: 'x1', priority: undefined, infoLink: { infoLinkText: 'Titel' },
      validityPeriod: { itdDateTime_From: itd('2026', '12', '24'), itdDateTime_To: itd('-1', '-1', '-1') },
      concernedLines: [{ number: '2' }, { stateless: 'lil:2: :R:j26' }, { diva: { network: 'lil', line: '3', supplement: ' ', dir: 'R', project: 'j26' } }],
    };
    const { records } = parse.addInfo(addInfo(single));
    expect(records).toEqual([expect.objectContaining({ id: 'x1', title: 'Titel', text: '', validFrom: '2026-12-24', lines: ['2', 'lil:2: :R:j26', 'lil:3: :R:j26'] })]);
    expect(records[0]?.validTo).toBeUndefined();
    expect(records[0]?.severity).toBeUndefined();
  });

  it('takes the type from paramList when `type` is missing (as in the pins’ infos of the MVV sample)', () => {
    const { records } = parse.addInfo(addInfo([{ ...notice, type: undefined, paramList: [{ type: 'addInfoParam', name: 'infoType', value: 'stopBlocking', edit: '0' }] }]));
    expect(records[0]?.type).toBe('stopBlocking');
  });

  it('rejects a notice without id, with an impossible date, or without a type; keeps the rest', () => {
    const { records, rejects } = parse.addInfo(addInfo([
      { ...notice, infoID: undefined },
      { ...notice, infoID: 'bad-date', validityPeriod: { itdDateTime_From: itd('2026', '2', '30') } },
      { ...notice, infoID: 'no-type', type: undefined },
      notice,
    ]));
    expect(records.map((n) => n.id)).toEqual(['11892_LL_ICSLAG']);
    expect(rejects.map((r) => r.reason)).toEqual([
      expect.stringContaining('travelInformation[0].infoID'),
      expect.stringContaining('[1].validityPeriod[0].itdDateTime_From: not a date: 2026-02-30'),
      expect.stringContaining('[2].type: no notice type'),
    ]);
  });

  it('an empty answer is no notices; a body without additionalInformation is a shape error', () => {
    expect(parse.addInfo({ additionalInformation: { travelInformations: null } }).records).toEqual([]);
    expect(parse.addInfo(addInfo([])).records).toEqual([]);
    expect(thrown(() => parse.addInfo({ error: { message: 'x' } }))).toBeInstanceOf(ShapeMismatchError);
  });
});

describe('legacy OpArea (efa-api.md shape, no real sample): polygon forms', () => {
  const ring = [[48.7, 9.1], [48.8, 9.1], [48.8, 9.2], [48.7, 9.1]];
  const expected = [[[9.1, 48.7], [9.1, 48.8], [9.2, 48.8], [9.1, 48.7]]];
  const provider = (polygon: unknown) => ({ providers: [{ id: 'p1', name: 'P', vehicleType: 'BIKE', areas: [{ id: 'a1', name: 'A', polygon }] }] });

  it.each([
    ['[lat, lon] points', ring],
    ['a list of rings', [ring]],
    ['"lat,lon" pairs separated by spaces', '48.7,9.1 48.8,9.1 48.8,9.2 48.7,9.1'],
    ['"lat,lon" pairs separated by semicolons', '48.7,9.1;48.8,9.1;48.8,9.2;48.7,9.1'],
    ['a GeoJSON Polygon ([lon, lat])', { type: 'Polygon', coordinates: [[[9.1, 48.7], [9.1, 48.8], [9.2, 48.8], [9.1, 48.7]]] }],
  ])('%s', (_name, polygon) => {
    const { records, rejects } = parse.opArea(provider(polygon));
    expect(rejects).toEqual([]);
    expect(records[0]).toMatchObject({ id: 'p1', vehicleType: 'BIKE', areas: [{ id: 'a1', name: 'A', polygons: [expected], ringsClosedByParser: false }] });
  });

  it('closes an open ring, and keeps areas without geometry', () => {
    const { records } = parse.opArea(provider('48.7,9.1;48.8,9.1;48.8,9.2'));
    expect(records[0]?.areas[0]).toMatchObject({ polygons: [expected], ringsClosedByParser: true });
    expect(parse.opArea(provider(undefined)).records[0]?.areas[0]?.polygons).toBeNull();
  });

  it('rejects anything else with the area path; grid values stop the run; no providers[] is a shape error', () => {
    for (const polygon of [42, { type: 'Point', coordinates: [9, 48] }, '48.7;9.1', [[48.7, 9.1], [48.8]], [[48.7, 9.1], [48.7, 9.1], [48.8, 9.2]]]) {
      const { records, rejects } = parse.opArea(provider(polygon));
      expect(records).toEqual([]);
      expect(rejects[0]?.reason).toContain('providers[0].areas[0].polygon');
    }
    expect(thrown(() => parse.opArea(provider([[4475708, 812930], [4475709, 812931], [4475710, 812930]])))).toBeInstanceOf(ImplausibleCoordinatesError);
    expect(thrown(() => parse.opArea({ parameters: [] }))).toBeInstanceOf(ShapeMismatchError);
  });
});

describe('legacy envelopes and records', () => {
  it('pins: a grid coordinate stops the run; a pin without coords is a reject', () => {
    const pin = { desc: 'A', type: 'STOP', id: '1', coords: '4475708.00000,812930.00000', attrs: [] };
    expect(thrown(() => parse.coordInfo({ pins: [pin] }))).toBeInstanceOf(ImplausibleCoordinatesError);
    const { records, rejects } = parse.coordInfo({ pins: [{ ...pin, coords: undefined }, { ...pin, type: 'poi_point', id: '', coords: '9.1,48.7' }] });
    expect(rejects[0]?.reason).toContain('pins[0].coords');
    expect(records).toEqual([{ type: 'POI_POINT', name: 'A', coord: { lon: 9.1, lat: 48.7 }, motTypes: [], attrs: { attrs: [], legacyType: 'poi_point' } }]);
  });

  it('stopFinder: points null is no hits; a missing stopFinder is a shape error', () => {
    expect(parse.stopFinder({ stopFinder: { points: null } }).records).toEqual([]);
    expect(thrown(() => parse.stopFinder({ locations: [] }))).toBeInstanceOf(ShapeMismatchError);
    expect(thrown(() => parse.servingLines({ servingLines: [] }))).toBeInstanceOf(ShapeMismatchError);
  });
});

describe('legacy detect() does not claim the other dialects’ real bodies', () => {
  const dir = '/work/shared/efa-samples/rapidjson';
  it.each(readdirSync(dir).filter((f) => f.endsWith('.json')))('rapidjson/%s', (file) => {
    expect(legacyDialect.detect(JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as unknown)).toBe(false);
  });

  it('nor efa-api.md json bodies, errors, or non-objects', () => {
    expect(legacyDialect.detect({ pins: [{ type: 'STOP', id: '1', name: 'A', coord: { lat: 48.7, lon: 9.1 } }] })).toBe(false);
    expect(legacyDialect.detect({ locations: [] })).toBe(false);
    expect(legacyDialect.detect({ servingLines: [] })).toBe(false);
    expect(legacyDialect.detect({ infos: [] })).toBe(false);
    expect(legacyDialect.detect({ providers: [] })).toBe(false);
    expect(legacyDialect.detect({ error: { status: 400, message: 'x' } })).toBe(false);
    expect(legacyDialect.detect([])).toBe(false);
    expect(legacyDialect.detect(null)).toBe(false);
  });
});
