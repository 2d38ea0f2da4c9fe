/**
 * Issue 19: every rapidJSON answer the simulator gives (CoordInfo box and circle, parking, sharing
 * vehicles and the vehicle-detail mode, StopFinder, ServingLines, AddInfo, OpArea) validates
 * against our JSON Schemas of the interface's published definitions (test/helpers/rapidjson-schema.ts),
 * run with ajv; so do the bodies written from the schema in test/fixtures/rapidjson. Bodies are
 * recorded off the wire, as the client asked for them.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient, type EfaClient } from '../../src/efa/client.js';
import { dialects } from '../../src/efa/dialects/index.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import type { Transport } from '../../src/http/types.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { RAPID_SCHEMAS, type RapidOperation } from '../helpers/rapidjson-schema.js';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }));
const validators = Object.fromEntries(
  Object.entries(RAPID_SCHEMAS).map(([operation, schema]) => [operation, ajv.compile(schema)]),
) as Record<RapidOperation, ValidateFunction>;

function problems(operation: RapidOperation, body: unknown): string[] {
  const validate = validators[operation];
  return validate(body) ? [] : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

const BOX: [number, number, number, number] = [9.15, 48.76, 9.21, 48.795];

describe('the simulator’s rapidJSON answers validate against the published definitions', () => {
  let sim: Simulator;
  let client: EfaClient;
  const answers: { operation: RapidOperation; label: string; body: unknown }[] = [];
  let label = '';

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500, dialect: 'rapidjson', today: '2026-11-22', clock: '2026-11-24T10:00:00+01:00' });
    const wire = createFetchTransport();
    const recording: Transport = {
      async send(request) {
        const reply = await wire.send(request);
        answers.push({ operation: request.operation as RapidOperation, label, body: JSON.parse(reply.body) as unknown });
        return reply;
      },
    };
    client = createEfaClient({
      baseUrl: sim.url, transport: recording, dialect: dialects.rapidjson,
      scheduler: createRequestScheduler({ requestsPerSecond: 200, concurrency: 2 }),
    });
    const ask = async (name: string, call: () => Promise<unknown>) => {
      label = name;
      await call();
    };
    await ask('coord box, every kind', () => client.coordInfoBox({ bbox: BOX, filters: [{ type: 'ANY' }] }));
    await ask('coord box, stops and POIs', () => client.coordInfoBox({ bbox: BOX, filters: [{ type: 'STOP' }, { type: 'POI_POINT' }, { type: 'GIS_POINT' }, { type: 'BUS_POINT' }] }));
    await ask('coord circle', () => client.coordInfoCircle({ coord: { lon: 9.18, lat: 48.777 }, filters: [{ type: 'STOP', radius: 400 }, { type: 'POI_AREA', radius: 400 }] }));
    await ask('parking with real time', () => client.coordInfoParking({ parkingBBox: BOX, parkingObjectType: 'all', parkObjInfo: true, parkObjInfoRealtime: true, max: 500 }));
    await ask('sharing vehicles', () => client.coordInfoBox({ bbox: BOX, filters: [{ type: 'ANY' }], vehSF: ['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI'], vehAtStation: true }));
    const vehicles = answers.at(-1)?.body as { locations: { id: string }[] };
    const ref = vehicles.locations.map((l) => l.id.split(':')).find((parts) => parts.length === 3);
    if (ref) {
      const [id = '', operatorId = '', opAreaId = ''] = ref;
      await ask('vehicle detail', () => client.vehicleDetail({ sharingRef: { id, operatorId, opAreaId }, vehSpec: true, vehAvail: true, vehAtStation: true }));
    }
    const stop = sim.world.stops()[0];
    await ask('stop finder by name', () => client.stopFinder({ name: stop?.name ?? 'Haupt', type: 'any' }));
    await ask('stop finder by coordinate', () => client.stopFinder({ name: { lon: 9.18, lat: 48.777 }, type: 'coord' }));
    await ask('serving lines at a stop', () => client.servingLinesAtStop({ stopId: stop?.id ?? '', lineReqType: [] }));
    await ask('serving lines by name', () => client.servingLinesByName({ lineName: sim.world.lines()[0]?.name ?? 'S1', lineReqType: [] }));
    await ask('add info current', () => client.addInfo({ filterPublicationStatus: 'current' }));
    await ask('add info history', () => client.addInfo({ filterPublicationStatus: 'history' }));
    await ask('op area all with zones', () => client.opArea({ opareaSM: 'ALL', operatingZoneGeometry: true }));
    await ask('op area radial', () => client.opArea({ opareaSM: 'RADIAL', coordRadius: { coord: { lon: 9.18, lat: 48.777 }, radiusM: 3000 } }));
  }, 120_000);
  afterAll(async () => sim?.stop());

  it('asked every operation and the vehicle-detail mode, and got records from each', () => {
    expect(new Set(answers.map((a) => a.operation))).toEqual(new Set(['coordInfo', 'stopFinder', 'servingLines', 'addInfo', 'opArea']));
    expect(answers.map((a) => a.label)).toContain('vehicle detail');
    const size = (label: string): number => {
      const body = answers.find((a) => a.label === label)?.body as Record<string, unknown>;
      const list = body['locations'] ?? body['lines'] ?? body['operatingAreas'] ?? (body['infos'] as { current?: unknown } | undefined)?.current;
      return Array.isArray(list) ? list.length : -1;
    };
    for (const label of ['coord box, every kind', 'coord circle', 'parking with real time', 'sharing vehicles', 'stop finder by name', 'serving lines at a stop', 'add info current', 'op area all with zones']) {
      expect(size(label), label).toBeGreaterThan(0);
    }
    const detail = answers.find((a) => a.label === 'vehicle detail')?.body as { locations: { properties: { coordInfoDetails?: unknown } }[] };
    expect(detail.locations).toHaveLength(1);
    expect(detail.locations[0]?.properties.coordInfoDetails).toMatchObject({ vehicleDetails: { id: expect.any(String) } });
    const parking = answers.find((a) => a.label === 'parking with real time')?.body as { locations: { properties: Record<string, unknown> }[] };
    expect(parking.locations.some((l) => (l.properties['coordInfoDetails'] as { parkingDataSet?: unknown } | undefined)?.parkingDataSet !== undefined)).toBe(true);
  });

  it('every answer is valid', () => {
    const invalid = answers.flatMap((a) => problems(a.operation, a.body).map((p) => `${a.label}: ${p}`));
    expect(invalid).toEqual([]);
  });

  it('the schemas are not vacuous: what the published definitions forbid is refused', () => {
    const opArea = answers.find((a) => a.label === 'op area all with zones')?.body as { operatingAreas: Record<string, unknown>[] };
    const area = opArea.operatingAreas[0] as Record<string, unknown>;
    expect(problems('opArea', { ...opArea, operatingAreas: [{ ...area, product: 'scooter' }] })).not.toEqual([]);
    expect(problems('opArea', { ...opArea, operatingAreas: [{ ...area, polygon: [] }] })).not.toEqual([]);
    expect(problems('opArea', { operatingAreas: [] })).not.toEqual([]);
    const coord = answers.find((a) => a.label === 'coord box, every kind')?.body as { locations: Record<string, unknown>[] };
    expect(problems('coordInfo', { ...coord, locations: [{ ...coord.locations[0], type: 'gisPoint' }] })).not.toEqual([]);
    const info = answers.find((a) => a.label === 'add info current')?.body as { infos: { current: Record<string, unknown>[] } };
    const notice = info.infos.current[0] as Record<string, unknown>;
    expect(problems('addInfo', { ...info, infos: { ...info.infos, current: [{ ...notice, infoLinks: [] }] } })).not.toEqual([]);
  });
});

describe('the bodies written from the published schema validate against our schemas', () => {
  const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/rapidjson/${name}.json`, import.meta.url), 'utf8'));
  it.each([
    ['oparea', 'opArea'],
    ['parking', 'coordInfo'],
    ['sharing', 'coordInfo'],
  ] as const)('%s', (name, operation) => {
    expect(problems(operation, fixture(name))).toEqual([]);
  });
});
