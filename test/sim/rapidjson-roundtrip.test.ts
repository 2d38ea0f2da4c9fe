/**
 * The simulator speaking rapidJSON, read by the client's rapidjson profile, yields exactly the
 * records (contract fields) the same world yields in the json dialect: so a sweep builds the same
 * tables whichever dialect the deployment speaks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient, type EfaClient } from '../../src/efa/client.js';
import { dialects } from '../../src/efa/dialects/index.js';
import type { Location, Notice, Pin, Provider, ServingLine } from '../../src/efa/records.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const pinKey = (p: Pin) => ({ type: p.type, id: p.id, name: p.name, lon: p.coord.lon, lat: p.coord.lat, motTypes: p.motTypes });
const locationKey = (l: Location) => ({ id: l.id, name: l.name, type: l.type, isBest: l.isBest, matchQuality: l.matchQuality, coord: l.coord });
const lineKey = (l: ServingLine) => ({ id: l.id, name: l.name, number: l.number, mot: l.mot, direction: l.direction });
const noticeKey = (n: Notice) => ({
  id: n.id, type: n.type, title: n.title, text: n.text, validFrom: n.validFrom, validTo: n.validTo, lines: [...n.lines].sort(), severity: n.severity,
});
const providerKey = (p: Provider) => ({
  id: p.id, name: p.name, vehicleType: p.vehicleType, areas: p.areas.map((a) => ({ id: a.id, name: a.name, polygons: a.polygons })),
});

describe('rapidJSON simulator and client: same records as the json dialect', () => {
  let json: Simulator;
  let rapid: Simulator;
  let viaJson: EfaClient;
  let viaRapid: EfaClient;

  const client = (sim: Simulator, name: 'json' | 'rapidjson'): EfaClient =>
    createEfaClient({
      baseUrl: sim.url,
      transport: createFetchTransport(),
      scheduler: createRequestScheduler({ requestsPerSecond: 100, concurrency: 4 }),
      dialect: dialects[name],
    });

  beforeAll(async () => {
    json = await startSimulator({ port: 0, seed: 3, size: 1500 });
    rapid = await startSimulator({ port: 0, seed: 3, size: 1500, dialect: 'rapidjson' });
    viaJson = client(json, 'json');
    viaRapid = client(rapid, 'rapidjson');
  });
  afterAll(async () => {
    await json?.stop();
    await rapid?.stop();
  });

  it('CoordInfo box with every object type: same pins, and rapidJSON was on the wire', async () => {
    const options = {
      bbox: [9.15, 48.76, 9.21, 48.795] as [number, number, number, number],
      filters: [{ type: 'ANY' as const }],
    };
    const [a, b] = await Promise.all([viaJson.coordInfoBox(options), viaRapid.coordInfoBox(options)]);
    expect(new Set(a.records.map((p) => p.type)).size).toBeGreaterThanOrEqual(5);
    expect(b.rejects).toEqual([]);
    expect(b.records.map(pinKey)).toEqual(a.records.map(pinKey));
    const query = new URLSearchParams(rapid.requestLog.at(-1)?.query ?? '');
    expect([query.get('outputFormat'), query.get('coordOutputFormat')]).toEqual(['rapidJSON', 'EPSG:4326']);
  });

  it('StopFinder by name and by coordinate: same locations, same best match', async () => {
    const stop = json.world.stops()[7];
    if (stop === undefined) throw new Error('no stops');
    for (const options of [{ type: 'any' as const, name: stop.name }, { type: 'any' as const, name: stop.id }]) {
      const [a, b] = await Promise.all([viaJson.stopFinder(options), viaRapid.stopFinder(options)]);
      expect(a.records.length).toBeGreaterThan(0);
      expect(b.records.map(locationKey)).toEqual(a.records.map(locationKey));
    }
  });

  it('ServingLines odv and line: same lines, the canonical five-part id', async () => {
    const stop = json.world.stops().find((s) => json.world.linesAtStop(s.id).length > 1);
    const line = json.world.lines()[0];
    if (stop === undefined || line === undefined) throw new Error('no lines');
    const pairs = await Promise.all([
      Promise.all([viaJson.servingLinesAtStop({ stopId: stop.id }), viaRapid.servingLinesAtStop({ stopId: stop.id })]),
      Promise.all([viaJson.servingLinesByName({ lineName: line.name }), viaRapid.servingLinesByName({ lineName: line.name })]),
    ]);
    for (const [a, b] of pairs) {
      expect(a.records.length).toBeGreaterThan(0);
      expect(b.records.map(lineKey)).toEqual(a.records.map(lineKey));
      for (const record of b.records) expect(record.id?.split(':')).toHaveLength(5);
    }
  });

  it('AddInfo current: same notices, marked current', async () => {
    const [a, b] = await Promise.all([
      viaJson.addInfo({ filterPublicationStatus: 'current' }),
      viaRapid.addInfo({ filterPublicationStatus: 'current' }),
    ]);
    expect(a.records.length).toBeGreaterThan(0);
    expect(b.records.map(noticeKey)).toEqual(a.records.map(noticeKey));
    expect(b.records.every((n) => n.attrs['publication'] === 'current')).toBe(true);
    expect(b.records.some((n) => n.lines.length > 0)).toBe(true);
  });

  it('OpArea ALL with geometry: same providers, areas and rings', async () => {
    const options = { opareaSM: 'ALL' as const, operatingZoneGeometry: true };
    const [a, b] = await Promise.all([viaJson.opArea(options), viaRapid.opArea(options)]);
    expect(a.records.length).toBeGreaterThan(0);
    // The published schema's product has no scooter word: a scooter scheme answers `unknown`.
    const asProduct = (p: Provider): Provider => ({ ...p, vehicleType: p.vehicleType === 'MINIVEHICLE' ? 'UNKNOWN' : p.vehicleType });
    expect(b.records.map(providerKey)).toEqual(a.records.map(asProduct).map(providerKey));
    // Read from GeoJSON [lon, lat] positions whose values fit either order: the client says so.
    expect(b.records.flatMap((p) => p.areas.map((area) => area.coordOrder))).toEqual(b.records.flatMap((p) => p.areas.map(() => 'ambiguous')));
  });

  it('an error answer is rapidJSON too, and its message is kept', async () => {
    const reply = await fetch(`${rapid.url}/XML_STOPFINDER_REQUEST?outputFormat=rapidJSON&type_sf=any`);
    expect(reply.status).toBe(400);
    const body: unknown = await reply.json();
    expect(dialects.rapidjson.detect(body)).toBe(true);
    expect(dialects.json.detect(body)).toBe(false);
    const [message] = dialects.rapidjson.messages(body);
    expect(message).toMatchObject({ type: 'error', code: '-400', module: 'UNKNOWN' });
    expect(message?.text).toContain('name_sf');
  });
});
