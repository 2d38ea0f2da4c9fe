/**
 * The simulator speaking legacy EFA JSON, read by the client with the legacy dialect, yields the
 * same records (contract fields) as the simulator in json read with the json dialect: the same
 * world gives the same tables whichever dialect the deployment speaks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient, type EfaClient } from '../../src/efa/client.js';
import { dialects } from '../../src/efa/dialects/index.js';
import type { Location, Notice, Pin, Provider, ServingLine } from '../../src/efa/records.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const TODAY = '2026-11-22';
const pinKey = (p: Pin) => ({ type: p.type, id: p.id, name: p.name, lon: p.coord.lon, lat: p.coord.lat, motTypes: p.motTypes });
const locationKey = (l: Location) => ({ id: l.id, name: l.name, type: l.type, isBest: l.isBest, q: l.matchQuality, coord: l.coord });
const lineKey = (l: ServingLine) => ({ id: l.id, name: l.name, number: l.number, mot: l.mot, direction: l.direction });
const noticeKey = (n: Notice) => ({
  id: n.id, type: n.type, title: n.title, text: n.text, validFrom: n.validFrom, validTo: n.validTo, lines: n.lines, severity: n.severity,
});
const providerKey = (p: Provider) => ({
  id: p.id, name: p.name, vehicleType: p.vehicleType, areas: p.areas.map((a) => ({ id: a.id, name: a.name, polygons: a.polygons })),
});
const sortedBy = <T>(items: T[]): T[] => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe('legacy simulator + legacy dialect = json simulator + json dialect', () => {
  let jsonSim: Simulator;
  let legacySim: Simulator;
  let json: EfaClient;
  let legacy: EfaClient;

  beforeAll(async () => {
    [jsonSim, legacySim] = await Promise.all([
      startSimulator({ port: 0, seed: 3, size: 1500, today: TODAY }),
      startSimulator({ port: 0, seed: 3, size: 1500, today: TODAY, dialect: 'legacy' }),
    ]);
    const make = (sim: Simulator, dialect: (typeof dialects)[keyof typeof dialects]): EfaClient =>
      createEfaClient({
        baseUrl: sim.url,
        transport: createFetchTransport(),
        scheduler: createRequestScheduler({ requestsPerSecond: 100, concurrency: 4, retries: 0 }),
        dialect,
      });
    json = make(jsonSim, dialects.json);
    legacy = make(legacySim, dialects.legacy);
  });
  afterAll(async () => {
    await Promise.all([jsonSim?.stop(), legacySim?.stop()]);
  });

  async function both<T, K>(call: (client: EfaClient) => Promise<{ records: T[]; rejects: unknown[] }>, key: (record: T) => K): Promise<K[]> {
    const [a, b] = await Promise.all([call(json), call(legacy)]);
    expect(b.rejects).toEqual([]);
    expect(a.rejects).toEqual([]);
    const left = sortedBy(a.records.map(key));
    expect(sortedBy(b.records.map(key))).toEqual(left);
    return left;
  }

  it('sends outputFormat=JSON and coordOutputFormat=WGS84[dd.ddddd]', async () => {
    await legacy.addInfo({});
    const query = new URLSearchParams(legacySim.requestLog.at(-1)?.query ?? '');
    expect(query.get('outputFormat')).toBe('JSON');
    expect(query.get('coordOutputFormat')).toBe('WGS84[dd.ddddd]');
  });

  it('CoordInfo box, every pin type', async () => {
    const pins = await both((c) => c.coordInfoBox({ bbox: [9.1, 48.74, 9.26, 48.82], filters: [{ type: 'ANY' }, { type: 'STOP' }] }), pinKey);
    expect(pins.length).toBeGreaterThan(100);
    expect(new Set(pins.map((p) => p.type))).toEqual(new Set(['STOP', 'POI_POINT', 'POI_AREA', 'GIS_POINT', 'BUS_POINT', 'SHARING']));
    expect(pins.some((p) => p.type === 'STOP' && p.motTypes.length > 0)).toBe(true);
  });

  it('StopFinder: one hit (the single-object form), several hits, by coordinate', async () => {
    const stop = [...jsonSim.world.allPins(['STOP'])][5];
    if (stop?.id === undefined) throw new Error('no stop');
    const one = await both((c) => c.stopFinder({ type: 'any', name: stop.id ?? '' }), locationKey);
    expect(one).toEqual([expect.objectContaining({ id: stop.id, name: stop.name, isBest: true, coord: { lon: stop.lon, lat: stop.lat } })]);
    const many = await both((c) => c.stopFinder({ type: 'any', name: stop.name.split(', ')[0] ?? stop.name }), locationKey);
    expect(many.length).toBeGreaterThan(1);
    const near = await both((c) => c.stopFinder({ type: 'coord', name: { lon: stop.lon, lat: stop.lat } }), locationKey);
    expect(near.length).toBeGreaterThan(0);
    const none = await both((c) => c.stopFinder({ type: 'any', name: 'Qxzvbnm Wqpty' }), locationKey);
    expect(none).toEqual([]);
  });

  it('StopFinder with several hits carries the -8011 note as one message', async () => {
    const stop = [...jsonSim.world.allPins(['STOP'])][5];
    const result = await legacy.stopFinder({ type: 'any', name: stop?.name.split(', ')[0] ?? 'x' });
    expect(result.records.length).toBeGreaterThan(1);
    expect(result.messages).toEqual([{ code: '-8011', module: 'BROKER', text: '', attrs: {} }]);
  });

  it('ServingLines at a stop and by name, with canonical line ids', async () => {
    const stop = [...jsonSim.world.allPins(['STOP'])].find((p) => jsonSim.world.linesAtStop(p.id ?? '').length > 1);
    const atStop = await both((c) => c.servingLinesAtStop({ stopId: stop?.id ?? '' }), lineKey);
    expect(atStop.length).toBeGreaterThan(1);
    expect(atStop[0]?.id).toMatch(/^vvs:\d+: :[HR]:j\d+$/);
    const byName = await both((c) => c.servingLinesByName({ lineName: atStop[0]?.name ?? '' }), lineKey);
    expect(byName.length).toBeGreaterThan(0);
  });

  it('AddInfo current notices, with validity days and line keys', async () => {
    const notices = await both((c) => c.addInfo({ filterPublicationStatus: 'current' }), noticeKey);
    expect(notices.length).toBeGreaterThan(0);
    expect(notices.every((n) => n.validFrom !== undefined && n.validFrom <= TODAY && n.validTo !== undefined && n.validTo >= TODAY)).toBe(true);
    expect(notices.some((n) => n.lines.length > 0)).toBe(true);
  });

  it('OpArea ALL with geometry', async () => {
    const providers = await both((c) => c.opArea({ opareaSM: 'ALL', operatingZoneGeometry: true }), providerKey);
    expect(providers.length).toBeGreaterThan(0);
    expect(providers.every((p) => p.areas.every((a) => a.polygons !== null))).toBe(true);
  });
});
