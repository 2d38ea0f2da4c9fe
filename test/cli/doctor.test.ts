import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../src/db/index.js';
import { createRun } from '../../src/db/runs.js';
import { probeUpstream, UpstreamConfigError, assertUpstreamUsable } from '../../src/run/probe.js';
import type { JobInput } from '../../src/job/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const allOperations = (baseUrl: string, bbox: readonly number[]): JobInput => ({
  name: 'doctor-test',
  baseUrl,
  region: { bbox: bbox as [number, number, number, number] },
  rateLimit: { requestsPerSecond: 50, concurrency: 2, retries: 2, timeoutMs: 5000 },
  sweeps: {
    coord: { types: ['POI_POINT', 'STOP'], maxPerRequest: 100 },
    stopFinder: { names: ['Hauptbahnhof'] },
    servingLines: { forStops: true },
    addInfo: { publicationStatus: 'current' },
    opArea: { mode: 'ALL', geometry: true },
  },
});

/** A gateway that answers every request with one status: what a wrong key or a missing header gets. */
async function statusServer(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/efa`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('probeUpstream: one cheap request per configured operation, classified', () => {
  let sim: Simulator;
  let rapid: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 5, size: 3000 });
    rapid = await startSimulator({ port: 0, seed: 5, size: 3000, dialect: 'rapidjson' });
  });
  afterAll(async () => {
    await sim?.stop();
    await rapid?.stop();
  });

  it('finds every operation of a healthy upstream ok, with one request each and a tiny CoordInfo box', async () => {
    const before = sim.requestLog.length;
    const result = await probeUpstream(inlineJob(allOperations(sim.url, sim.world.bbox)));
    expect(result.checks.map((c) => [c.operation, c.outcome])).toEqual([
      ['coordInfo', 'ok'], ['stopFinder', 'ok'], ['servingLines', 'ok'], ['addInfo', 'ok'], ['opArea', 'ok'],
    ]);
    expect(result.ok).toBe(true);
    expect(result.configurationErrors).toEqual([]);
    const sent = sim.requestLog.slice(before);
    // One request per operation; ServingLines for stops may first ask CoordInfo for a stop near the centre.
    expect(sent.length - result.checks.length).toBeGreaterThanOrEqual(0);
    expect(sent.length - result.checks.length).toBeLessThanOrEqual(1);
    expect(sent.filter((e) => e.path.endsWith('XML_SERVINGLINES_REQUEST')).length).toBe(1);
    for (const e of sent.filter((x) => x.path.endsWith('XML_COORD_REQUEST'))) expect(new URLSearchParams(e.query).get('max')).toBe('1');
    const opArea = new URLSearchParams(sent.find((e) => e.path.endsWith('XML_OPAREA_REQUEST'))?.query);
    expect(opArea.get('opareaSM')).toBe('ALL');
    expect(opArea.get('operatingZoneGeometry')).not.toBe('1');
  });

  it('names the path and the paths option on a 404', async () => {
    const result = await probeUpstream(inlineJob(allOperations(`${sim.url}/wrong-prefix`, sim.world.bbox)));
    // ServingLines for stops needs a stop id from CoordInfo, which failed: skipped, not sent.
    expect(result.checks.map((c) => c.outcome)).toEqual(['not-found', 'not-found', 'skipped', 'not-found', 'not-found']);
    expect(result.checks.filter((c) => c.outcome === 'not-found').every((c) => c.status === 404)).toBe(true);
    expect(result.checks.find((c) => c.operation === 'coordInfo')?.hint).toMatch(/baseUrl.*paths\.coordInfo/);
    expect(() => assertUpstreamUsable(result)).toThrow(UpstreamConfigError);
  });

  it('tells 401 from 403 and points at the auth header', async () => {
    for (const [status, outcome] of [[401, 'unauthorized'], [403, 'forbidden']] as const) {
      const gateway = await statusServer(status);
      try {
        const result = await probeUpstream(inlineJob({ ...allOperations(gateway.url, sim.world.bbox), sweeps: { addInfo: { publicationStatus: 'current' } } }));
        expect(result.checks).toEqual([expect.objectContaining({ operation: 'addInfo', outcome, status })]);
        expect(result.checks[0]?.hint).toMatch(/header/);
        expect(result.configurationErrors.length).toBe(1);
      } finally {
        await gateway.close();
      }
    }
  });

  it('reports a closed port and a host that does not resolve as unreachable', async () => {
    const closed = await statusServer(200);
    await closed.close();
    const refused = await probeUpstream(inlineJob({ ...allOperations(closed.url, sim.world.bbox), sweeps: { opArea: { mode: 'ALL' } } }));
    expect(refused.checks[0]).toMatchObject({ operation: 'opArea', outcome: 'unreachable' });
    expect(refused.checks[0]?.message).toMatch(/ECONNREFUSED/);
    const dns = await probeUpstream(inlineJob({ ...allOperations('http://efa.host-that-does-not-exist.invalid/efa', sim.world.bbox), sweeps: { opArea: { mode: 'ALL' } } }));
    expect(dns.checks[0]).toMatchObject({ operation: 'opArea', outcome: 'unreachable' });
    expect(dns.checks[0]?.hint).toMatch(/host in baseUrl/);
  });

  it('recognises an answer in another dialect and names the dialect to set', async () => {
    const result = await probeUpstream(inlineJob({ ...allOperations(rapid.url, rapid.world.bbox), dialect: 'json' }));
    const coord = result.checks.find((c) => c.operation === 'coordInfo');
    expect(coord).toMatchObject({ outcome: 'wrong-dialect', answeredIn: 'rapidjson' });
    expect(coord?.hint).toMatch(/"dialect": "rapidjson"/);
    expect(result.configurationErrors.length).toBeGreaterThan(0);
    const right = await probeUpstream(inlineJob({ ...allOperations(rapid.url, rapid.world.bbox), dialect: 'rapidjson' }));
    expect(right.checks.find((c) => c.operation === 'coordInfo')?.outcome).toBe('ok');
    const auto = await probeUpstream(inlineJob({ ...allOperations(rapid.url, rapid.world.bbox), dialect: 'auto' }));
    expect(auto.checks.find((c) => c.operation === 'coordInfo')).toMatchObject({ outcome: 'ok', answeredIn: 'rapidjson' });
  });
});

describe('efa-sync doctor', () => {
  let sim: Simulator;
  let dbUrl: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 5, size: 2000 });
    dbUrl = await createTestDbUrl({ migrated: false });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-doctor-'));
    await writeFile(join(dir, 'good.json'), JSON.stringify(allOperations(sim.url, sim.world.bbox)));
    await writeFile(join(dir, 'wrong-path.json'), JSON.stringify(allOperations(`${sim.url}/nope`, sim.world.bbox)));
    // Berlin: outside the simulator's world, where every request is answered and nothing is found.
    await writeFile(join(dir, 'elsewhere.json'), JSON.stringify(allOperations(sim.url, [13.3, 52.45, 13.45, 52.55])));
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await dbUrl?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('on a database without the schema: reachable, PostGIS, migrations pending; exit 0', async () => {
    const r = await runCli(['doctor', '--db', dbUrl.url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +database +.*reachable \(PostgreSQL/m);
    expect(r.stdout).toMatch(/^ok +postgis +PostGIS 3\./m);
    expect(r.stdout).toMatch(/^warn +schema +no efa schema yet; \d+ migrations pending/m);
  });

  it('after migrate, with a run left running and a job: one line per check, --json, exit 0; a wrong path exits 1', async () => {
    const db = await openDb(dbUrl.url);
    try {
      await migrate(db);
      // What a run killed mid-way leaves behind.
      await createRun(db.kysely, { jobName: 'stuck-job', jobHash: 'x', scope: { source: 'stuck-job', region: '{}', regionMax: [0, 0], relations: {} }, options: {} });
    } finally {
      await db.close();
    }
    const r = await runCli(['doctor', join(dir, 'good.json'), '--db', dbUrl.url, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; status: string; message: string }[] };
    expect(report.ok).toBe(true);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName['schema']?.status).toBe('ok');
    expect(byName['schema']?.message).toMatch(/no migration pending/);
    expect(byName['runs']).toMatchObject({ status: 'warn' });
    expect(byName['runs']?.message).toMatch(/stuck-job/);
    for (const op of ['coordInfo', 'stopFinder', 'addInfo', 'opArea']) expect(byName[op]?.status).toBe('ok');
    expect(byName['region']).toMatchObject({ status: 'ok' });
    expect(byName['region']?.message).toMatch(/every swept type \(POI_POINT, STOP\)/);

    const bad = await runCli(['doctor', join(dir, 'wrong-path.json'), '--db', dbUrl.url]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^fail +coordInfo +.*HTTP 404.*paths\.coordInfo/m);
    // The region is asked only of an upstream whose CoordInfo answered.
    expect(bad.stdout.trim().split('\n').length).toBe(report.checks.filter((c) => c.name !== 'region').length);
  }, 120_000);

  it('warns when the region answers no object of a swept type (a job outside the simulator\'s world)', async () => {
    const r = await runCli(['doctor', join(dir, 'elsewhere.json'), '--db', dbUrl.url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +coordInfo +.*0 records/m);
    expect(r.stdout).toMatch(/^warn +region +the region \[13\.3000, 52\.4500, 13\.4500, 52\.5500\] answers no object of the swept types POI_POINT, STOP: a run would store nothing and exit 3 +→ .*docs\/simulator\.md/m);
  }, 120_000);

  it('does not create an embedded database by looking for one', async () => {
    const missing = join(dir, 'no-such-db');
    const r = await runCli(['doctor', '--db', `pglite:${missing}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail +database +no embedded database at/m);
    expect(existsSync(missing)).toBe(false);
  });
});
