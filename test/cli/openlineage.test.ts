import { createServer, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { jsonLines, runBuiltCli, spawnBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

interface Received {
  readonly path: string;
  readonly event: {
    eventType: string;
    eventTime: string;
    run: { runId: string; facets: Record<string, { message?: string }> };
    job: { namespace: string; name: string };
    inputs: { namespace: string; name: string }[];
    outputs: { namespace: string; name: string; outputFacets: { outputStatistics: { rowCount: number } } }[];
    producer: string;
    schemaURL: string;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An OpenLineage receiver: every POST body, with its path. */
async function startReceiver(): Promise<{ server: Server; url: string; events: Received[] }> {
  const events: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      events.push({ path: req.url ?? '', event: JSON.parse(body) as Received['event'] });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, events };
}

const until = async (what: string, check: () => boolean, ms = 60_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('OpenLineage run events, through the built CLI, to a local receiver', () => {
  let sim: Simulator;
  let slowSim: Simulator;
  let failingSim: Simulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let db: TestDbUrl;
  let dir: string;
  const job = async (name: string, baseUrl: string, bbox: readonly number[]): Promise<string> => {
    const file = join(dir, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify({
        name,
        baseUrl,
        region: { bbox: [...bbox] },
        rateLimit: { requestsPerSecond: 50, concurrency: 2, retries: 0 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 80 }, servingLines: { forStops: true }, addInfo: { publicationStatus: 'current' } },
      }),
    );
    return file;
  };
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 5, size: 400 });
    slowSim = await startSimulator({ port: 0, seed: 6, size: 600, faults: 'latency=60-120' });
    failingSim = await startSimulator({ port: 0, seed: 7, size: 200, faults: 'error5xx=1' });
    receiver = await startReceiver();
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-openlineage-'));
  });
  afterAll(async () => {
    await Promise.all([sim?.stop(), slowSim?.stop(), failingSim?.stop()]);
    await new Promise((r) => receiver?.server.close(r));
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The namespace and database the run's tables are named under, from the test database's URL. */
  const expectedOutput = (): { namespace: string; database: string } => {
    if (db.url.startsWith('pglite:')) return { namespace: `file://${resolve(db.url.slice('pglite:'.length))}`, database: 'postgres' };
    const u = new URL(db.url);
    return { namespace: `postgres://${u.hostname}:${u.port || '5432'}`, database: u.pathname.slice(1) };
  };

  it('a succeeded run: START then COMPLETE to <url>/api/v1/lineage, one runId, the EFA operations in, the relations out with rowCount; no API key in a name', async () => {
    const from = receiver.events.length;
    // The key in the base URL's query is a secret: it must not reach a dataset name or namespace.
    const file = await job('lineage-ok', `${sim.url}?apiKey=s3cr3t-key-4711`, sim.world.bbox);
    const r = await runBuiltCli(['run', file, '--db', db.url, '--json', '--log-format', 'json', '--openlineage-url', receiver.url]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { relations: Record<string, { inserted: number; updated: number; deleted: number }> };
    const got = receiver.events.slice(from);
    expect(got.map((e) => e.event.eventType)).toEqual(['START', 'COMPLETE']);
    expect(got.every((e) => e.path === '/api/v1/lineage')).toBe(true);
    const [start, complete] = got.map((e) => e.event) as [Received['event'], Received['event']];
    expect(start.run.runId).toMatch(UUID);
    expect(complete.run.runId).toBe(start.run.runId);
    expect(complete.job).toEqual({ namespace: 'efa-sync', name: 'lineage-ok', facets: {} });
    expect(complete.schemaURL).toBe('https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent');
    expect(Number.isNaN(Date.parse(complete.eventTime))).toBe(false);
    const simUrl = new URL(sim.url);
    expect(complete.inputs.map((i) => `${i.namespace} ${i.name}`).sort()).toEqual(
      ['XML_ADDINFO_REQUEST', 'XML_COORD_REQUEST', 'XML_SERVINGLINES_REQUEST'].map((p) => `http://127.0.0.1:${simUrl.port} ${simUrl.pathname.replace(/\/$/, '')}/${p}`),
    );
    const { namespace, database } = expectedOutput();
    const pins = complete.outputs.find((o) => o.name === `${database}.efa.pins`);
    expect(pins?.namespace).toBe(namespace);
    const s = summary.relations['pins']!;
    expect(pins?.outputFacets.outputStatistics.rowCount).toBe(s.inserted + s.updated + s.deleted);
    expect(pins?.outputFacets.outputStatistics.rowCount).toBeGreaterThan(0);
    expect(complete.outputs.map((o) => o.name)).toContain(`${database}.efa.stop_lines`);
    expect(JSON.stringify(got)).not.toContain('s3cr3t-key-4711');
  }, 180_000);

  it('a run that fails (every answer a 5xx): START then FAIL with the run\'s error, and the run keeps its own exit code', async () => {
    const from = receiver.events.length;
    const file = await job('lineage-fail', failingSim.url, failingSim.world.bbox);
    const r = await runBuiltCli(['run', file, '--db', db.url, '--log-format', 'json', '--openlineage-url', receiver.url]);
    expect(r.code).not.toBe(0);
    const got = receiver.events.slice(from).map((e) => e.event);
    expect(got.map((e) => e.eventType)).toEqual(['START', 'FAIL']);
    expect(got[1]!.run.runId).toBe(got[0]!.run.runId);
    // Every operation answering 5xx at the start is a temporary failure (exit 75), named in the FAIL event.
    expect(r.code).toBe(75);
    expect(got[1]!.run.facets['errorMessage']?.message).toMatch(/upstream/);
  }, 180_000);

  it('SIGTERM during the sweep: ABORT after START, under the same runId, exit 143', async () => {
    const from = receiver.events.length;
    const file = await job('lineage-abort', slowSim.url, slowSim.world.bbox);
    const child = spawnBuiltCli(['run', file, '--db', db.url, '--log-format', 'json', '--openlineage-url', receiver.url]);
    const exited = new Promise<number | null>((r) => child.on('close', r));
    await until('START', () => receiver.events.slice(from).some((e) => e.event.eventType === 'START'));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    const got = receiver.events.slice(from).map((e) => e.event);
    expect(got.map((e) => e.eventType)).toEqual(['START', 'ABORT']);
    expect(got[1]!.run.runId).toBe(got[0]!.run.runId);
  }, 180_000);

  it('a receiver that is down: a warning, and the run still exits 0; file:// appends one JSON line per event', async () => {
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const port = (down.address() as AddressInfo).port;
    await new Promise((r) => down.close(r));
    const file = await job('lineage-ok', sim.url, sim.world.bbox);
    const r = await runBuiltCli(['run', file, '--db', db.url, '--log-format', 'json'], { OPENLINEAGE_URL: `http://127.0.0.1:${port}` });
    expect(r.code, r.stderr).toBe(0);
    const warnings = jsonLines(r.stderr).filter((l) => l['level'] === 'warn' && /OpenLineage (START|COMPLETE) event/.test(String(l['msg'])));
    expect(warnings.length).toBe(2);

    const ndjson = join(dir, 'lineage.ndjson');
    const again = await runBuiltCli(['run', file, '--db', db.url, '--log-format', 'json', '--openlineage-url', `file://${ndjson}`]);
    expect(again.code, again.stderr).toBe(0);
    const lines = (await readFile(ndjson, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Received['event']);
    expect(lines.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
  }, 240_000);

  it('file targets that are FIFOs nobody reads (OpenLineage, metrics): the run ends and the process exits, a warning names the FIFO (issue 45, point 4)', async () => {
    const fifo = join(dir, 'lineage.fifo');
    execFileSync('mkfifo', [fifo]);
    const metrics = join(dir, 'metrics.fifo');
    execFileSync('mkfifo', [metrics]);
    const file = await job('lineage-fifo', sim.url, sim.world.bbox);
    // The harness kills the child only after 120 s; before the fix it never exited at all.
    const r = await runBuiltCli(['run', file, '--db', db.url, '--log-format', 'json', '--openlineage-url', `file://${fifo}`, '--metrics-file', metrics]);
    expect(r.code, r.stderr).toBe(0);
    const warnings = jsonLines(r.stderr).filter((l) => l['level'] === 'warn' && String(l['msg']).includes(`${fifo} is a FIFO (named pipe) nobody reads`));
    expect(warnings.map((w) => String(w['msg']).match(/OpenLineage (\w+) event/)?.[1])).toEqual(['START', 'COMPLETE']);
    // The metrics file is written beside and renamed into place: the FIFO is replaced, nothing waits on it.
    expect((await stat(metrics)).isFile()).toBe(true);
    expect(await readFile(metrics, 'utf8')).toContain('efa_sync_run_last_success_timestamp_seconds');
  }, 240_000);
});
