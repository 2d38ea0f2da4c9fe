/**
 * A deployment with local stop ids, in each dialect: the stop's `id` is the local number, its
 * global id is where that dialect carries it (json and legacy: an `attrs` name/value pair
 * STOP_GLOBAL_ID; legacy StopFinder: `ref.gid`; rapidJSON: `properties.STOP_GLOBAL_ID` with
 * `isGlobalId: false`), and ServingLines, StopFinder and AddInfo take the local id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient } from '../../src/efa/client.js';
import { dialects } from '../../src/efa/dialects/index.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import { parseXml } from '../../src/efa/parse/xml/tree.js';
import { SIM_DIALECTS, startSimulator, type SimDialect, type Simulator, type Stop } from '../../src/sim/index.js';
import { c, TODAY } from './helpers.js';

type Json = Record<string, unknown>;
const BASE = 7_000_000;

/** The ids of one stop as a dialect's body shows them. */
interface ShownStop { id: unknown; globalId: unknown; isGlobalId?: unknown; localId?: unknown }

const nameValue = (list: unknown, name: string): unknown => (list as Json[] | undefined)?.find((a) => a['name'] === name)?.['value'];
/** An XML element list: none, one (an object) or several (an array); a bare `<odvNameElem/>` is none. */
const many = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : v !== null && typeof v === 'object' && Object.keys(v).length > 0 ? [v as Json] : []);
const at = (v: unknown, ...path: string[]): unknown => path.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : v && typeof v === 'object' && 'point' in v ? [(v as Json)['point'] as Json] : []);

/** Where each dialect puts a stop's ids in CoordInfo pins, StopFinder locations and AddInfo stops. */
const READ: Record<SimDialect, {
  pins: (body: Json) => (ShownStop & { type: unknown })[];
  locations: (body: Json) => ShownStop[];
  lineCount: (body: Json) => number;
  noticeStops: (body: Json) => ShownStop[];
}> = {
  json: {
    pins: (b) => (b['pins'] as Json[]).map((p) => ({ type: p['type'], id: p['id'], globalId: nameValue(p['attrs'], 'STOP_GLOBAL_ID') })),
    locations: (b) => (b['locations'] as Json[]).map((l) => ({ id: l['id'], globalId: nameValue(l['attrs'], 'STOP_GLOBAL_ID') })),
    lineCount: (b) => (b['servingLines'] as Json[]).length,
    // efa-api.md lists a notice's stops as ids only.
    noticeStops: (b) => (b['infos'] as Json[]).flatMap((n) => (n['stops'] as string[]).map((id) => ({ id, globalId: undefined }))),
  },
  legacy: {
    pins: (b) => (b['pins'] as Json[]).map((p) => ({
      type: p['type'], id: p['id'], localId: p['stateless'], globalId: nameValue(p['attrs'], 'STOP_GLOBAL_ID'),
    })),
    locations: (b) => list((b['stopFinder'] as Json)['points']).map((p) => ({
      id: (p['ref'] as Json)['id'], localId: p['stateless'], globalId: (p['ref'] as Json)['gid'],
    })),
    lineCount: (b) => ((b['servingLines'] as Json)['lines'] as Json[]).length,
    noticeStops: (b) => (((b['additionalInformation'] as Json)['travelInformations'] as Json)['travelInformation'] as Json[])
      .flatMap((n) => (n['concernedStops'] as Json[]).map((s) => ({ id: s['id'], globalId: s['gid'] }))),
  },
  rapidjson: {
    pins: (b) => (b['locations'] as Json[]).map((l) => ({ type: l['type'] === 'stop' ? 'STOP' : l['type'], ...rapidStop(l) })),
    locations: (b) => (b['locations'] as Json[]).map(rapidStop),
    lineCount: (b) => (b['lines'] as Json[]).length,
    noticeStops: (b) => ((b['infos'] as Json)['current'] as Json[]).flatMap((n) => ((n['affected'] as Json)['stops'] as Json[]).map(rapidStop)),
  },
  // xml: the root element's content; the global id where the real answers carry it (genAttrList, gid).
  xml: {
    pins: (b) => many(at(b, 'itdCoordInfoRequest', 'itdCoordInfo', 'coordInfoItemList', 'coordInfoItem')).map((p) => ({
      type: p['type'], id: p['id'], localId: p['stateless'],
      globalId: many(at(p, 'genAttrList', 'genAttrElem')).find((a) => a['name'] === 'STOP_GLOBAL_ID')?.['value'],
    })),
    locations: (b) => many(at(b, 'itdStopFinderRequest', 'itdOdv', 'itdOdvName', 'odvNameElem')).map((e) => ({ id: e['id'], localId: e['stateless'], globalId: e['gid'] })),
    lineCount: (b) => many(at(b, 'itdServingLinesRequest', 'itdServingLines', 'itdServingLine')).length,
    noticeStops: (b) => many(at(b, 'itdAddInfoRequest', 'itdAdditionalTravelInformations', 'itdAdditionalTravelInformation'))
      .flatMap((n) => many(at(n, 'concernedStops', 'stop')).map((s) => ({ id: s['id'], globalId: s['gid'] }))),
  },
};

function rapidStop(l: Json): ShownStop {
  const properties = l['properties'] as Json;
  return { id: l['id'], isGlobalId: l['isGlobalId'], localId: properties['stopId'], globalId: properties['STOP_GLOBAL_ID'] };
}

/** How a stop with this local id and global id must look in each dialect. */
function expected(dialect: SimDialect, stop: Stop): ShownStop {
  if (dialect === 'json') return { id: stop.id, globalId: stop.globalId };
  if (dialect === 'legacy' || dialect === 'xml') return { id: stop.id, localId: stop.id, globalId: stop.globalId };
  return { id: stop.id, isGlobalId: false, localId: stop.id, globalId: stop.globalId };
}

describe.each(SIM_DIALECTS)('local stop ids in the %s dialect', (dialect) => {
  let sim: Simulator;
  let get: (op: string, q: string) => Promise<Json>;
  /** A stop a current stop notice names and more than one line serves, if there is one. */
  let stop: Stop;
  let noticeId: string;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 1, size: 3000, today: TODAY, dialect, stopIds: 'local', localIdBase: BASE });
    get = async (op, q) => {
      const r = await fetch(`${sim.url}/${op}?outputFormat=JSON&${q}`);
      expect(r.status).toBe(200);
      const text = await r.text();
      return dialect === 'xml' ? (parseXml(text).root as Json) : (JSON.parse(text) as Json);
    };
    const w = sim.world;
    const notice = w.currentNotices().find((n) => n.stops.some((id) => w.linesAtStop(id).length > 0));
    const named = notice?.stops.map((id) => w.stop(id)).find((s) => s !== undefined && w.linesAtStop(s.id).length > 0);
    if (!notice || !named) throw new Error('the world has no current stop notice on a served stop');
    stop = named;
    noticeId = notice.id;
  });
  afterAll(async () => sim?.stop());

  it('the chosen stop has a local id from the base and a de: global id', () => {
    expect(Number(stop.id)).toBeGreaterThanOrEqual(BASE);
    expect(stop.globalId).toMatch(/^de:\d{5}:\d+$/);
  });

  it('CoordInfo: every stop pin shows its local id and its global id', async () => {
    const body = await get('XML_COORD_REQUEST', `coord=${c(stop.lon, stop.lat)}&inclFilter=1&type_1=STOP&radius_1=600`);
    const stops = READ[dialect].pins(body).filter((p) => p.type === 'STOP');
    expect(stops.length).toBeGreaterThan(1);
    for (const shown of stops) {
      const truth = sim.world.stop(String(shown.id));
      expect(truth, `stop ${String(shown.id)}`).toBeDefined();
      const { type: _type, ...ids } = shown;
      expect(ids).toEqual(expected(dialect, truth!));
    }
    expect(stops.map((s) => s.id)).toContain(stop.id);
  });

  it('StopFinder by local id and by global id: the one stop, under its local id', async () => {
    for (const name of [stop.id, stop.globalId ?? '']) {
      const body = await get('XML_STOPFINDER_REQUEST', `type_sf=any&name_sf=${encodeURIComponent(name)}`);
      expect(READ[dialect].locations(body)).toEqual([expected(dialect, stop)]);
    }
  });

  it('ServingLines by local id lists the stop\'s lines; its global id is resolved to the same stop', async () => {
    const count = sim.world.linesAtStop(stop.id).length;
    for (const name of [stop.id, stop.globalId ?? '']) {
      const body = await get('XML_SERVINGLINES_REQUEST', `mode=odv&type_sl=any&lineReqType=0&name_sl=${encodeURIComponent(name)}`);
      expect(READ[dialect].lineCount(body)).toBe(count);
    }
    const other = await get('XML_SERVINGLINES_REQUEST', `mode=odv&type_sl=any&lineReqType=0&name_sl=${Number(stop.id) - BASE + 1_000_000}`);
    expect(READ[dialect].lineCount(other)).toBe(0);
  });

  it('AddInfo: a stop notice names the stop by its ids, and the stop filter takes the local id', async () => {
    const body = await get('XML_ADDINFO_REQUEST', `filterInfoID=${noticeId}`);
    // json lists a notice's stops by id only; legacy `concernedStops` carry id and gid, no stateless.
    const { localId: _localId, ...legacy } = expected(dialect, stop);
    const shown = dialect === 'json' ? { id: stop.id, globalId: undefined } : dialect === 'legacy' || dialect === 'xml' ? legacy : expected(dialect, stop);
    expect(READ[dialect].noticeStops(body)).toContainEqual(shown);
    const filtered = await get('XML_ADDINFO_REQUEST', `filterPublicationStatus=current&itdLPxx_selStop=${stop.id}`);
    const ids = sim.world.notices().filter((n) => n.stops.includes(stop.id)).map((n) => n.id);
    expect(ids).toContain(noticeId);
    const filteredIds = dialect === 'legacy'
      ? (((filtered['additionalInformation'] as Json)['travelInformations'] as Json)['travelInformation'] as Json[]).map((n) => n['infoID'])
      : dialect === 'rapidjson'
        ? ((filtered['infos'] as Json)['current'] as Json[]).map((n) => n['id'])
        : dialect === 'xml'
          ? many(at(filtered, 'itdAddInfoRequest', 'itdAdditionalTravelInformations', 'itdAdditionalTravelInformation')).map((n) => n['infoID'])
        : (filtered['infos'] as Json[]).map((n) => n['id']);
    expect(filteredIds).toContain(noticeId);
  });

  it('the client of this dialect reads the bodies without rejects', async () => {
    const client = createEfaClient({
      baseUrl: sim.url,
      transport: createFetchTransport(),
      scheduler: createRequestScheduler({ requestsPerSecond: 100, concurrency: 2 }),
      dialect: dialects[dialect],
    });
    const pins = await client.coordInfoCircle({ coord: { lon: stop.lon, lat: stop.lat }, filters: [{ type: 'STOP', radius: 600 }] });
    expect(pins.records.length).toBeGreaterThan(1);
    expect(pins.rejects).toEqual([]);
    const locations = await client.stopFinder({ type: 'any', name: stop.id });
    expect(locations.records).toHaveLength(1);
    expect(locations.rejects).toEqual([]);
  });
});

describe.each(SIM_DIALECTS)('global stop ids (the default) in the %s dialect', (dialect) => {
  it('a stop\'s id is its global id and the global id field repeats it (json: the id alone, as in efa-api.md)', async () => {
    const sim = await startSimulator({ port: 0, seed: 1, size: 3000, today: TODAY, dialect });
    try {
      const stop = sim.world.stops()[11]!;
      expect(stop.globalId).toBe(stop.id);
      const r = await fetch(`${sim.url}/XML_STOPFINDER_REQUEST?outputFormat=JSON&type_sf=any&name_sf=${encodeURIComponent(stop.id)}`);
      const text = await r.text();
      const [shown] = READ[dialect].locations(dialect === 'xml' ? (parseXml(text).root as Json) : (JSON.parse(text) as Json));
      // Legacy servers number stops locally even where requests take global ids: a local number is derived.
      const local = dialect === 'json' ? {} : { localId: expect.stringMatching(/^\d+$/) };
      const flag = dialect === 'rapidjson' ? { isGlobalId: true } : {};
      expect(shown).toEqual({ id: dialect === 'legacy' || dialect === 'xml' ? expect.stringMatching(/^\d+$/) : stop.id, globalId: dialect === 'json' ? undefined : stop.id, ...local, ...flag });
    } finally {
      await sim.stop();
    }
  });
});
