/**
 * The client against the simulator where the request itself is wrong: a misspelt path, a path the
 * simulator does not serve, a malformed box, a parameter the client cannot foresee. Each is refused
 * before sending or surfaces as the server's 4xx, never retried.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createEfaClient } from '../../src/efa/client.js';
import { EfaHttpStatusError, EfaParameterError } from '../../src/efa/errors.js';
import type { Operation } from '../../src/efa/operations.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler, type MeteredRequestScheduler } from '../../src/http/scheduler.js';
import { startSimulator, type Simulator, type World } from '../../src/sim/index.js';
import { BOX, boxWorld, FILTERS, simError, TODAY, type Box } from './client-sim-world.js';
import { rejection } from './fakes.js';

let world: World;
beforeAll(() => {
  world = boxWorld();
});

describe('EFA client against the simulator: wrong paths and parameters', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, world, today: TODAY });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  /** The simulator's 4xx for one CoordInfo call: EfaHttpStatusError with its body, sent once, not retried. */
  async function expectRefusedOnce(call: () => Promise<unknown>, status: number, message: string): Promise<void> {
    const before = sim.requestLog.length;
    const error = await rejection(call());
    expect(error).toBeInstanceOf(EfaHttpStatusError);
    expect(error).toMatchObject({ operation: 'coordInfo', status, retryable: false, excerpt: simError(status, message) });
    expect(sim.requestLog.length - before).toBe(1);
  }

  const scheduler = (): MeteredRequestScheduler =>
    createRequestScheduler({ requestsPerSecond: 100, concurrency: 1, retries: 2, baseDelayMs: 1 });

  it('XML_COORDINFO_REQUEST cannot be named: not an operation, and refused as a path override', () => {
    // @ts-expect-error Operations are named, not paths: the misspelt path is no Operation.
    const operation: Operation = 'XML_COORDINFO_REQUEST';
    expect(operation).toBe('XML_COORDINFO_REQUEST');

    const before = sim.requestLog.length;
    const misspelt = (() => {
      try {
        createEfaClient({
          baseUrl: sim.url,
          transport: createFetchTransport(),
          scheduler: scheduler(),
          paths: { coordInfo: 'XML_COORDINFO_REQUEST' },
        });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(misspelt).toBeInstanceOf(EfaParameterError);
    expect(misspelt).toMatchObject({ parameter: 'paths.coordInfo', retryable: false });
    expect(String(misspelt)).toContain('names another EFA operation; coordInfo is XML_COORD_REQUEST');

    expect(() =>
      createEfaClient({
        baseUrl: sim.url,
        transport: createFetchTransport(),
        scheduler: scheduler(),
        // @ts-expect-error Only the five operations can have their paths overridden.
        paths: { coordInfoRequest: 'XML_COORDINFO_REQUEST' },
      }),
    ).toThrow(expect.objectContaining({ name: 'EfaParameterError', parameter: 'paths.coordInfoRequest' }));
    expect(sim.requestLog.length).toBe(before);
  });

  it('the simulator answers 404 to a raw fetch of XML_COORDINFO_REQUEST', async () => {
    const response = await fetch(
      `${sim.url}/XML_COORDINFO_REQUEST?outputFormat=JSON&coord=9.18:48.777:WGS84[dd.ddddd]&inclFilter=1&type_0=STOP`,
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { status: 404, message: 'no such operation: /efa/XML_COORDINFO_REQUEST' } });
  });

  it('a path the simulator does not serve, through the client: EfaHttpStatusError 404, not retried', async () => {
    const client = createEfaClient({
      baseUrl: sim.url,
      transport: createFetchTransport(),
      scheduler: scheduler(),
      paths: { coordInfo: 'v1/tp/coord' },
    });
    await expectRefusedOnce(() => client.coordInfoBox({ bbox: BOX, filters: FILTERS }), 404, 'no such operation: /efa/v1/tp/coord');
  });

  it('a malformed boundingBoxLU: raw fetch gets 400 naming boundingBoxLU', async () => {
    const response = await fetch(
      `${sim.url}/XML_COORD_REQUEST?outputFormat=JSON&boundingBox&boundingBoxLU=nonsense&boundingBoxRL=9.19:48.76:WGS84[dd.ddddd]&inclFilter=1&type_0=STOP`,
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: number; message: string } };
    expect(body.error.status).toBe(400);
    expect(body.error.message).toMatch(/^boundingBoxLU: /);
    expect(body.error.message).toContain('"nonsense"');
  });

  it('the client refuses such a box before sending anything', async () => {
    const client = createEfaClient({ baseUrl: sim.url, transport: createFetchTransport(), scheduler: scheduler() });
    const before = sim.requestLog.length;
    const error = await rejection(client.coordInfoBox({ bbox: [Number.NaN, 48.76, 9.19, 48.785], filters: FILTERS }));
    expect(error).toBeInstanceOf(EfaParameterError);
    expect(error).toMatchObject({ operation: 'coordInfo', parameter: 'bbox[0]', retryable: false });
    expect(sim.requestLog.length).toBe(before);
  });

  it('a 400 the client could not foresee (mapName) surfaces as EfaHttpStatusError 400, not retried', async () => {
    const client = createEfaClient({ baseUrl: sim.url, transport: createFetchTransport(), scheduler: scheduler() });
    await expectRefusedOnce(() => client.coordInfoBox({ bbox: BOX, filters: FILTERS, mapName: 'MRCV' }), 400, 'mapName: only WGS84[dd.ddddd] is served, got "MRCV"');
  });
});
