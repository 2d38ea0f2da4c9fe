/**
 * The legacy dialect against real legacy EFA JSON bodies (/work/shared/efa-samples, see SOURCES.md):
 * MVV CoordInfo and StopFinder, VOR StopFinder point fragments, the `servingLines` block of MVV and
 * VRR departure-monitor answers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { legacyDialect } from '../../../src/efa/dialects/legacy.js';
import { EfaCoordinateFormatError } from '../../../src/efa/errors.js';
import { ImplausibleCoordinatesError } from '../../../src/efa/parse/common.js';
import { json, rejection, setup } from '../fakes.js';
import { thrown } from '../helpers.js';

const SAMPLES = '/work/shared/efa-samples';
const load = (name: string): Record<string, unknown> => JSON.parse(readFileSync(`${SAMPLES}/${name}`, 'utf8')) as Record<string, unknown>;
const VOR = ['loc', 'poi', 'singlehouse', 'stop', 'street'].map((kind) => ({ kind, point: load(`legacy-json/stopfinder-jlnstrk-transit-vor-point-${kind}.json`) }));

/** The sample with every `ref.coords` replaced by a WGS84 value, to read the other fields (the originals are grid values). */
function withWgs84(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => (key === 'coords' && typeof value === 'string' ? '11.60000,48.20000' : value)) as unknown;
}


describe('legacy CoordInfo: MVV XML_COORD_REQUEST sample', () => {
  const { records, rejects } = legacyDialect.parse.coordInfo(load('legacy-json/coord-jlnstrk-transit-mvv.json'));

  it('reads all 15 pins: desc as name, "x,y" coords as lon,lat, the global stop id', () => {
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(15);
    expect(records[0]).toMatchObject({
      type: 'STOP', id: 'de:09162:1', name: 'Karlsplatz (Stachus)', coord: { lon: 11.5654, lat: 48.13937 }, motTypes: [1, 2, 3, 4, 104],
    });
    expect(records[0]?.attrs).toMatchObject({ localId: '1000001', omc: '9162000', distance: '7', locality: 'München' });
    expect(records[0]?.attrs['attrs']).toContainEqual({ name: 'STOP_TARIFF_ZONES:mvv', value: '1000' });
    expect(records.find((p) => p.name === 'Marienplatz (Rindermarkt)')).toMatchObject({
      id: 'de:09162:166', coord: { lon: 11.57373, lat: 48.13556 }, motTypes: [3, 104],
    });
    expect(records.find((p) => p.id === 'de:09162:6')?.motTypes).toEqual([1, 2, 3, 4, 6, 104]);
  });

  it('keeps the pin infos (stop notices) in attrs', () => {
    const elisen = records.find((p) => p.name === 'Elisenstraße');
    expect(elisen?.attrs['infos']).toMatchObject({ info: { paramList: expect.arrayContaining([expect.objectContaining({ value: '18723_MVV' })]) } });
  });

  it('is recognised by detect', () => {
    expect(legacyDialect.detect(load('legacy-json/coord-jlnstrk-transit-mvv.json'))).toBe(true);
  });
});

describe('legacy StopFinder: MVV sample (no coordOutputFormat, coordinates in the MVTT grid)', () => {
  const body = load('legacy-json/stopfinder-jlnstrk-transit-mvv.json');

  it('refuses the grid coordinates with ImplausibleCoordinatesError, naming the first one', () => {
    const error = thrown(() => legacyDialect.parse.stopFinder(body));
    expect(error).toBeInstanceOf(ImplausibleCoordinatesError);
    expect(error).toMatchObject({ path: ['stopFinder', 'points', 0, 'ref', 'coords'], value: '4475708,812930' });
  });

  it('through the client this is EfaCoordinateFormatError (exit 2), saying the server ignored the coordOutputFormat sent', async () => {
    const { client, transport } = setup([json(body)], { dialect: legacyDialect });
    const error = await rejection(client.stopFinder({ type: 'any', name: 'Max?' }));
    expect(error).toBeInstanceOf(EfaCoordinateFormatError);
    expect(error).toMatchObject({ exitCode: 2, retryable: false });
    expect(String(error)).toContain('the server ignored coordOutputFormat=WGS84[dd.ddddd], which was sent');
    expect(transport.requests[0]?.url.searchParams.get('coordOutputFormat')).toBe('WGS84[dd.ddddd]');
    expect(transport.requests[0]?.url.searchParams.get('outputFormat')).toBe('JSON');
  });

  it('reads the other fields; keeps ids and names as sent, even double-encoded (MÃ¼nchen)', () => {
    const { records, rejects } = legacyDialect.parse.stopFinder(withWgs84(body));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(27);
    // The server wants its id back unchanged: "repairing" it would make it unknown to the server.
    expect(records[0]).toMatchObject({
      id: 'poiID:3791:9184119:-1:Max--Planck-Institut fÃ¼r Astrophysik:Garching (b MÃ¼nchen):Max--Planck-Institut fÃ¼r Astrophysik:ANY:POI:4475708:812930:MVTT:MVV',
      name: 'Garching (b MÃ¼nchen), Max--Planck-Institut fÃ¼r Astrophysik', type: 'poi', isBest: false, matchQuality: 60,
      coord: { lon: 11.6, lat: 48.2 },
    });
    expect(records[0]?.attrs).toMatchObject({ nameRepaired: 'Garching (b München), Max--Planck-Institut für Astrophysik', object: 'Max--Planck-Institut fÃ¼r Astrophysik' });
    expect(records[0]?.attrs['_mojibakeRepaired']).toBeUndefined();
    expect(records.find((l) => l.name === 'Dachau, Max-Planck-StraÃŸe')).toMatchObject({ id: 'de:09174:7073', globalId: 'de:09174:7073', type: 'stop', matchQuality: 115 });
    expect(records.find((l) => l.isBest)).toMatchObject({ name: 'Maxau', type: 'loc', matchQuality: 600, id: 'suburbID:9183118:56:Maxau:4515628:824875:MVTT' });
    const maxfeld = records.find((l) => l.name === 'Maxfeld');
    expect(maxfeld?.coord).toBeUndefined();
    expect(maxfeld?.attrs['nameRepaired']).toBeUndefined();
  });

  it('returns the -8011 note as one message, not as a failure', () => {
    expect(legacyDialect.messages(body)).toEqual([{ code: '-8011', module: 'BROKER', text: '', attrs: {} }]);
    expect(legacyDialect.detect(body)).toBe(true);
  });
});

describe('legacy StopFinder: VOR point fragments (one per anyType, MRCV grid)', () => {
  it.each(VOR)('$kind: a single hit as { point: {...} } is read, and its grid coordinate refused', ({ point }) => {
    const body = { stopFinder: { points: { point } } };
    expect(thrown(() => legacyDialect.parse.stopFinder(body))).toBeInstanceOf(ImplausibleCoordinatesError);
    expect(legacyDialect.detect(body)).toBe(true);
    const { records, rejects } = legacyDialect.parse.stopFinder(withWgs84(body));
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: point['stateless'], name: point['name'], type: point['anyType'], isBest: false });
  });

  it('maps the stop fragment exactly', () => {
    const stop = VOR.find((v) => v.kind === 'stop')?.point;
    const { records } = legacyDialect.parse.stopFinder(withWgs84({ stopFinder: { points: [stop] } }));
    expect(records[0]).toMatchObject({ id: '60201510', name: 'Wien, Währinger Straße-Volksoper U', type: 'stop', matchQuality: 326 });
    expect(records[0]?.attrs).toMatchObject({ modes: '2,4,5,11', posttown: 'Wien', ref: expect.objectContaining({ omc: '49000001' }) });
  });
});

describe('legacy ServingLines: the servingLines block of real departure-monitor bodies', () => {
  it('MVV: 12 lines, canonical ids composed from diva, mode.type as MOT', () => {
    const body = load('other/servinglines-in-dm-jlnstrk-transit-mvv.json');
    const { records, rejects } = legacyDialect.parse.servingLines(body);
    expect(rejects).toEqual([]);
    expect(records).toHaveLength(12);
    expect(records[0]).toMatchObject({ id: 'mvv:21003: :H:s20', name: 'U-Bahn U3', number: 'U3', mot: 2, direction: 'Fürstenried West' });
    expect(records[0]?.attrs).toMatchObject({ product: 'U-Bahn', index: '2:0', diva: expect.objectContaining({ operator: 'MVG, 0800 344 22 66 00' }) });
    expect(records.find((l) => l.number === 'N43')).toMatchObject({ id: 'mvv:23043:N:H:s20', mot: 5, direction: 'Ostbahnhof' });
    expect(legacyDialect.detect(body)).toBe(true);
  });

  it('VRR: 5 lines including a TaxiBus (MOT 10)', () => {
    const { records } = legacyDialect.parse.servingLines(load('other/servinglines-in-dm-kevinriex-vrr-efa-api-vrr.json'));
    expect(records.map((l) => l.id)).toEqual([
      'rbg:72O16: :H:j22', 'rbg:72O16: :R:j22', 'rbg:720E6: :R:j22', 'rbg:72O14: :H:j22', 'rbg:72O14: :R:j22',
    ]);
    expect(records[3]).toMatchObject({ name: 'TaxiBus O14', number: 'O14', mot: 10, direction: 'Ratingen Hösel S' });
  });
});
