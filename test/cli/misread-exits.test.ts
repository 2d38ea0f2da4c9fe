import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

describe('exit codes a scheduler must not misread (built CLI)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 8, size: 500 });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-exits-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const job = async (name: string, bbox: readonly number[]): Promise<string> => {
    const file = join(dir, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify({
        name,
        baseUrl: sim.url,
        region: { bbox },
        rateLimit: { requestsPerSecond: 100, concurrency: 4 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 } },
      }),
    );
    return file;
  };

  it.skipIf(dbKind() !== 'postgres')('a database that does not exist, or a role the server refuses: exit 2 with what to do, the user name shown', async () => {
    const server = new URL(process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    const file = await job('nodb', [...sim.world.bbox]);

    const missing = new URL(server);
    missing.pathname = '/efa_sync_no_such_database';
    missing.password = '';
    const r = await runBuiltCli(['run', file, '--db', missing.toString(), '--log-format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    // The first error line (an info line says which job file was loaded, issue 29 point 14).
    const line = jsonLines(r.stderr).find((l) => l['level'] === 'error');
    expect(line).toMatchObject({ level: 'error', error: 'DatabaseRefusedError', exitCode: 2 });
    expect(String(line?.['msg'])).toContain('database "efa_sync_no_such_database" does not exist');
    expect(String(line?.['msg'])).toContain('create it (createdb');
    // No password in the URL: the role is no secret, and the operator needs to see it.
    expect(String(line?.['msg'])).toContain(`postgres://${server.username}@${server.host}/efa_sync_no_such_database`);
    expect(r.stderr).not.toContain('lost the database');

    const stranger = new URL(server);
    stranger.username = 'efa_sync_no_such_role';
    stranger.password = 'hunter2';
    const refused = await runBuiltCli(['run', file, '--db', stranger.toString(), '--log-format', 'json']);
    expect(refused.code, refused.stderr).toBe(2);
    const refusal = jsonLines(refused.stderr).find((l) => l['level'] === 'error');
    expect(refusal).toMatchObject({ error: 'DatabaseRefusedError', exitCode: 2 });
    expect(String(refusal?.['msg'])).toContain('refused user efa_sync_no_such_role');
    expect(String(refusal?.['msg'])).toContain('check the user name and password');
    expect(refused.stderr).not.toContain('hunter2');
  }, 120_000);

  it('a bbox given [lat, lon, lat, lon] that cannot be [lon, lat, …]: exit 2 naming the order', async () => {
    // Tokyo as a map tool shows it: latitude first. 139.6 is no latitude.
    const r = await runBuiltCli(['run', await job('tokyo', [35.6, 139.6, 35.8, 139.9]), '--db', db.url, '--log-format', 'json']);
    expect(r.code).toBe(2);
    const msg = String(jsonLines(r.stderr)[0]?.['msg']);
    expect(msg).toContain('region.bbox.1: latitude must be <= 90');
    expect(msg).toContain('[minLon, minLat, maxLon, maxLat]');
  });

  it('a region swapped into a valid box elsewhere answers nothing: not a success, the message names the order and the swapped box', async () => {
    const [minLon, minLat, maxLon, maxLat] = sim.world.bbox;
    const swapped = [minLat, minLon, maxLat, maxLon];
    const r = await runBuiltCli(['run', await job('swapped', swapped), '--db', db.url, '--json', '--log-format', 'json'], {}, 240_000);
    expect(r.code, r.stderr.slice(-1500)).toBe(3);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.coord?.pins).toBe(0);
    expect(summary.exitCode).toBe(3);
    const warning = jsonLines(r.stderr).find((l) => String(l['msg']).includes('answered no object at all'));
    expect(warning).toMatchObject({ level: 'warn' });
    expect(String(warning?.['msg'])).toContain('region.bbox is read as [minLon, minLat, maxLon, maxLat]');
    expect(String(warning?.['msg'])).toContain(`the box is [${[minLon, minLat, maxLon, maxLat].join(', ')}]`);
  }, 300_000);
});

/**
 * Issue 45, point 3: exits a scheduler acts on, through the built CLI. Each case exits as the table
 * says, naming the flag or variable at fault; the upstream ones as `run` classifies them (75).
 */
describe('exit codes of configuration and of an upstream that is down (built CLI, issue 45)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let upstreams: { down: string; failing: string; hanging: string; close(): Promise<void> };
  let jobFile: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 9, size: 400 });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-exits45-'));
    upstreams = await deadUpstreams();
    jobFile = join(dir, 'exits45.json');
    await writeFile(jobFile, JSON.stringify({
      name: 'exits45', baseUrl: sim.url, region: { bbox: [...sim.world.bbox] }, rateLimit: { requestsPerSecond: 200, concurrency: 4 },
      sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 } },
    }));
    const harvested = await runBuiltCli(['run', jobFile, '--db', db.url, '--log-format', 'json'], {}, 240_000);
    expect(harvested.code, harvested.stderr.slice(-1500)).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await upstreams?.close();
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const errorLine = (stderr: string): Record<string, unknown> | undefined => jsonLines(stderr).find((l) => l['level'] === 'error');

  it.skipIf(dbKind() !== 'postgres')('PGSSLMODE=require against a server that offers no TLS: exit 2 naming PGSSLMODE; sslmode=require in the URL: exit 2 naming it', async () => {
    const r = await runBuiltCli(['runs', '--db', db.url, '--log-format', 'json'], { PGSSLMODE: 'require' });
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ error: 'DatabaseRefusedError', exitCode: 2 });
    expect(String(errorLine(r.stderr)?.['msg'])).toContain('offers no TLS, and PGSSLMODE=require requires it');
    const inUrl = new URL(db.url);
    inUrl.searchParams.set('sslmode', 'require');
    const u = await runBuiltCli(['runs', '--db', inUrl.toString(), '--log-format', 'json']);
    expect(u.code, u.stderr).toBe(2);
    expect(String(errorLine(u.stderr)?.['msg'])).toContain('sslmode=require in the database URL');
  });

  it.each([
    ['a cast the rows fail', 'name::int > 0'],
    ['a division by zero', 'fid/0 = 1'],
    ['a name that resolves to several functions', "'pg_read_file'::regproc IS NOT NULL"],
  ])('export --where with %s: exit 2 naming --where, with the server\'s reason', async (_what, condition) => {
    const out = join(dir, 'where.csv');
    const r = await runBuiltCli(['export', '--db', db.url, '--relation', 'stops', '--out', out, '--where', condition, '--log-format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ error: 'ConfigError', exitCode: 2 });
    expect(String(errorLine(r.stderr)?.['msg'])).toMatch(/^--where: the database cannot evaluate the condition \(.+\)/);
  });

  it.each([
    ['a host that does not resolve', 'down'],
    ['an upstream answering only 503', 'failing'],
    ['an upstream that accepts and never answers', 'hanging'],
  ] as const)('plan --probe against %s: exit 75 as run gives, with what was asked', async (_what, which) => {
    const file = join(dir, `probe-${which}.json`);
    await writeFile(file, JSON.stringify({
      name: `probe-${which}`, baseUrl: upstreams[which], region: { bbox: [...sim.world.bbox] }, rateLimit: { requestsPerSecond: 50, concurrency: 2 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    }));
    const r = await runBuiltCli(['plan', file, '--probe', '8', '--log-format', 'json']);
    expect(r.code, r.stderr).toBe(75);
    expect(errorLine(r.stderr)).toMatchObject({ error: 'UpstreamUnavailableError', exitCode: 75 });
    expect(String(errorLine(r.stderr)?.['msg'])).toContain('cannot be reached now: coordInfo');
  });

  it('run --accept-deletions with a number beyond bigint, an id no run has, or a run of another job: exit 2 before any request', async () => {
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({
      name: 'other45', baseUrl: sim.url, region: { bbox: [...sim.world.bbox] }, rateLimit: { requestsPerSecond: 200, concurrency: 4 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    }));
    const runs = await runBuiltCli(['runs', '--db', db.url, '--job', 'exits45', '--json']);
    const runId = String((JSON.parse(runs.stdout) as { run_id: string }[])[0]?.run_id);
    const cases: [string, string, RegExp][] = [
      [jobFile, '9999999999999999999', /--accept-deletions: 9999999999999999999 is no run id/],
      [jobFile, '987654321', /--accept-deletions: there is no run 987654321 in /],
      [other, runId, new RegExp(`--accept-deletions: run ${runId} is a run of job exits45, not of job other45`)],
    ];
    for (const [file, id, message] of cases) {
      const before = sim.requestLog.length;
      const r = await runBuiltCli(['run', file, '--db', db.url, '--accept-deletions', id, '--log-format', 'json']);
      expect(r.code, r.stderr).toBe(2);
      expect(String(errorLine(r.stderr)?.['msg'])).toMatch(message);
      expect(sim.requestLog.length).toBe(before);
    }
  }, 120_000);
});

/** Upstreams that cannot serve: a name that does not resolve (.invalid, RFC 2606), a 503 server, a server that never answers. */
async function deadUpstreams(): Promise<{ down: string; failing: string; hanging: string; close(): Promise<void> }> {
  const failing = createServer((_req, res) => {
    res.statusCode = 503;
    res.end('maintenance');
  });
  const sockets = new Set<Socket>();
  const hanging = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }): Promise<number> =>
    new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const failingPort = await listen(failing);
  const hangingPort = await listen(hanging);
  return {
    down: 'http://efa-sync-no-such-host.invalid/efa',
    failing: `http://127.0.0.1:${failingPort}/efa`,
    hanging: `http://127.0.0.1:${hangingPort}/efa`,
    close: async () => {
      for (const s of sockets) s.destroy();
      failing.closeAllConnections();
      await Promise.all([new Promise((r) => failing.close(r)), new Promise((r) => hanging.close(r))]);
    },
  };
}
