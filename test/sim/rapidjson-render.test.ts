/** The simulator's rapidJSON bodies have the shapes of the public rapidJSON samples. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../src/efa/dialects/index.js';
import { rapidJsonDialect } from '../../src/efa/dialects/rapidjson.js';
import type { PinOut } from '../../src/sim/ops/coord.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { rapidJson } from '../../src/sim/render/rapid-json.js';
import { PIN_TYPES, type PinType } from '../../src/sim/types.js';
import { c, withSim } from './helpers.js';

type Body = Record<string, unknown>;
type Entry = Record<string, unknown>;
const list = (body: unknown, key: string): Entry[] => (body as Body)[key] as Entry[];

describe('simulator rapidJSON bodies', () => {
  let sim: Simulator;
  const get = async (path: string): Promise<Body> => {
    const reply = await fetch(`${sim.url}/${path}&outputFormat=rapidJSON&coordOutputFormat=EPSG:4326`);
    expect(reply.status).toBe(200);
    return (await reply.json()) as Body;
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500, dialect: 'rapidjson', today: '2026-11-22' });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('CoordInfo: version, systemMessages, locations with [lat, lon], productClasses, parent, properties', async () => {
    const body = await get('XML_COORD_REQUEST?boundingBox&boundingBoxLU=9.16:48.79:WGS84[dd.ddddd]&boundingBoxRL=9.2:48.76:WGS84[dd.ddddd]&inclFilter=1&type_0=STOP');
    expect(body).toMatchObject({ version: expect.any(String), systemMessages: [] });
    const first = list(body, 'locations')[0];
    const truth = sim.world.stop(String(first?.['id']));
    expect(first).toMatchObject({
      type: 'stop',
      isGlobalId: true,
      coord: [truth?.lat, truth?.lon],
      productClasses: truth?.motTypes,
      parent: { type: 'locality' },
      properties: { distance: expect.any(Number) },
    });
  });

  it('StopFinder: matchQuality and isBest on stop locations', async () => {
    const stop = sim.world.stops()[3];
    const body = await get(`XML_STOPFINDER_REQUEST?type_sf=any&name_sf=${encodeURIComponent(stop?.id ?? '')}`);
    expect(list(body, 'locations')).toEqual([
      expect.objectContaining({ id: stop?.id, type: 'stop', isBest: true, matchQuality: 1000, coord: [stop?.lat, stop?.lon] }),
    ]);
  });

  it('ServingLines: lines with product.class, destination.name and the VVS-style id', async () => {
    const line = sim.world.lines()[0];
    const body = await get(`XML_SERVINGLINES_REQUEST?mode=line&lineReqType=0&lineName=${encodeURIComponent(line?.name ?? '')}`);
    expect(list(body, 'lines')).toContainEqual(
      expect.objectContaining({ id: `${line?.id}:1`, number: line?.number, product: { class: line?.mot }, destination: { name: line?.direction, type: 'stop' } }),
    );
  });

  it('AddInfo: infos.current with validity in UTC (the schema\'s dateTime), subtitle and content, priority and affected lines', async () => {
    const body = await get('XML_ADDINFO_REQUEST?filterPublicationStatus=current');
    const infos = body['infos'] as { current: Entry[]; historic: Entry[]; affected: Entry };
    expect(infos.historic).toEqual([]);
    const withLines = infos.current.find((n) => ((n['affected'] as { lines: Entry[] }).lines.length > 0));
    const truth = sim.world.notice(String(withLines?.['id']));
    expect(withLines).toMatchObject({
      type: truth?.type,
      priority: truth?.severity,
      timestamps: { validity: [{ from: `${truth?.validFrom}T00:00:00Z`, to: `${truth?.validTo}T23:59:59Z` }] },
      subtitle: truth?.title,
      content: truth?.text,
      urlText: truth?.title,
      affected: { lines: truth?.lines.map((key) => ({ id: `${key}:` })) },
    });
  });

  it('every pin type is written as a rapidJSON kind the client maps back to it', () => {
    const pins: PinOut[] = PIN_TYPES.map((type: PinType, i) => ({
      pin: { key: `k${i}`, type, id: `id${i}`, name: `Pin ${type}`, lon: 9 + i / 100, lat: 48 + i / 100, attrs: {} },
      ...(type === 'STOP' ? { motTypes: [1, 5] } : {}),
      distanceM: i,
      extra: {},
    }));
    const { records, rejects } = rapidJsonDialect.parse.coordInfo(JSON.parse(JSON.stringify(rapidJson.coord({ pins }))));
    expect(rejects).toEqual([]);
    expect(records.map((p) => [p.type, p.id, p.coord.lon, p.coord.lat])).toEqual(pins.map(({ pin }) => [pin.type, pin.id, pin.lon, pin.lat]));
    expect(records[0]?.motTypes).toEqual([1, 5]);
  });
});

/** One body per operation from a simulator speaking `dialect`. */
async function bodiesOf(dialect: 'json' | 'legacy' | 'rapidjson'): Promise<unknown[]> {
  return withSim({ seed: 3, size: 1500, dialect }, async (sim, get) => {
    const stop = sim.world.stops()[5];
    const queries: [string, string][] = [
      ['XML_COORD_REQUEST', `boundingBox=1&boundingBoxLU=${c(9.1, 48.82)}&boundingBoxRL=${c(9.26, 48.74)}&inclFilter=1&type_1=ANY`],
      ['XML_STOPFINDER_REQUEST', `type_sf=any&name_sf=${encodeURIComponent(stop?.name ?? '')}`],
      ['XML_SERVINGLINES_REQUEST', `mode=odv&type_sl=any&lineReqType=0&name_sl=${encodeURIComponent(stop?.id ?? '')}`],
      ['XML_ADDINFO_REQUEST', 'filterPublicationStatus=current'],
    ];
    return Promise.all(queries.map(async ([op, q]) => JSON.parse((await get(op, q)).text) as unknown));
  });
}

describe('detect() across the simulator dialects', () => {
  it('rapidJSON bodies are rapidJSON only; json and legacy bodies are not rapidJSON', async () => {
    for (const body of await bodiesOf('rapidjson')) {
      expect(dialects.rapidjson.detect(body)).toBe(true);
      expect(dialects.json.detect(body)).toBe(false);
      expect(dialects.legacy.detect(body)).toBe(false);
    }
    for (const body of [...(await bodiesOf('json')), ...(await bodiesOf('legacy'))]) expect(dialects.rapidjson.detect(body)).toBe(false);
  });
});
