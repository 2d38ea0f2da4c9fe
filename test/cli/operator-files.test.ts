import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText } from '../../src/errors.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { builtCli, cleanEnv, runBuiltCli, type BuiltCliResult } from '../helpers/built-cli.js';

/**
 * Issue 29 points 14 and 15, through the built CLI: the operator's own files and flags. A bare job
 * name never runs code from the current directory; history prune refuses days the calendar lacks,
 * zone-less times, the distant past and the future; a GeoJSON region without area is refused at
 * validation; a PGlite directory opened through a symlink meets the real directory's lock; a
 * Pushgateway behind basic auth gets the credentials as a header and a redirect to another host is
 * not followed.
 */

const REGION = [9.1, 48.7, 9.2, 48.8] as const;

/** The built CLI started in `cwd` (the checkout's helper always starts in the checkout). */
function runIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<BuiltCliResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [builtCli, ...args], { cwd, env: { ...process.env, ...cleanEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('the operator’s own files and flags (built CLI)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-operator-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a bare job name never runs jobs/<name>.mjs of the current directory; a path does; the loaded file is logged', async () => {
    const cwd = join(dir, 'project');
    await mkdir(join(cwd, 'jobs'), { recursive: true });
    const marker = (name: string): string => join(cwd, `${name}.ran`);
    const codeJob = (name: string): string =>
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker(name))}, 'ran');\n` +
      `export default { name: ${JSON.stringify(name)}, baseUrl: 'http://127.0.0.1:9/efa', region: { bbox: ${JSON.stringify(REGION)} }, rateLimit: { requestsPerSecond: 5, concurrency: 1 }, sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } } };\n`;
    await writeFile(join(cwd, 'jobs', 'demo.mjs'), codeJob('demo'));
    await writeFile(join(cwd, 'jobs', 'onlycode.mjs'), codeJob('onlycode'));

    // The package's own demo.json, not the code beside it.
    const demo = await runIn(cwd, ['plan', 'demo', '--log-format', 'json']);
    expect(demo.code, demo.stderr).toBe(0);
    expect(existsSync(marker('demo'))).toBe(false);
    expect(demo.stderr).toMatch(/"level":"info".*job demo loaded from .*jobs\/demo\.json/);

    const onlyCode = await runIn(cwd, ['plan', 'onlycode']);
    expect(onlyCode.code).toBe(2);
    expect(onlyCode.stderr).toMatch(/onlycode\.mjs is code, and a bare job name loads only a \.json job: give its path/);
    expect(existsSync(marker('onlycode'))).toBe(false);

    // Written as a path, code is the operator's choice.
    const byPath = await runIn(cwd, ['plan', './jobs/onlycode.mjs']);
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(existsSync(marker('onlycode'))).toBe(true);
  }, 120_000);

  it('history prune --before refuses a day the calendar lacks, a time without a zone, year 0000 and the future (exit 2, naming --before)', async () => {
    const db = `pglite:${join(dir, 'prune-db')}`;
    const cases: [string, RegExp][] = [
      ['2026-02-30', /--before: 2026-02-30 is not a day of the calendar/],
      ['2026-03-01T12:00:00', /--before: a time needs its zone \(Z for UTC, or an offset such as \+01:00\)/],
      ['0000-01-01', /--before: before 1970-01-01/],
      ['2099-01-01', /--before: in the future/],
    ];
    for (const [before, message] of cases) {
      const r = await runBuiltCli(['history', 'prune', '--before', before, '--db', db]);
      expect(r.code, `${before}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 300_000);

  it('a GeoJSON region that encloses no area is refused at validation, naming the field', async () => {
    const file = join(dir, 'flat.json');
    const line = [[9.1, 48.7], [9.2, 48.8], [9.15, 48.75], [9.1, 48.7]];
    await writeFile(
      file,
      JSON.stringify({ name: 'flat', baseUrl: 'http://127.0.0.1:9/efa', region: { geojson: { type: 'Polygon', coordinates: [line] } }, rateLimit: { requestsPerSecond: 5, concurrency: 1 }, sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } } }),
    );
    const r = await runBuiltCli(['plan', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/region\.geojson\.coordinates\.0: the ring encloses no area/);
  }, 60_000);

  it('a PGlite directory opened through a symlink meets the lock of the real directory (exit 4, not a clash)', async () => {
    const real = join(dir, 'real-db');
    await mkdir(real);
    const link = join(dir, 'link-db');
    await symlink(real, link);
    // The real directory is held by a live process on this host (this one).
    await writeFile(`${real}.efa-sync.lock`, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString(), command: 'serve' }));
    const r = await runBuiltCli(['migrate', '--db', `pglite:${link}`]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/is in use by serve/);
    expect(r.stderr).not.toContain('[object Object]');
  }, 120_000);

  it('errorText of a thrown plain object says what it holds, never [object Object]', () => {
    expect(errorText({ message: 'the data directory is in use', code: 'EBUSY' })).toBe('the data directory is in use (EBUSY)');
    expect(errorText({ errno: 11 })).toBe('{"errno":11}');
    expect(errorText({})).not.toContain('[object Object]');
  });
});

interface Received {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

/** A gateway recording every request and answering with `answer`. */
async function gateway(answer: (req: IncomingMessage) => { status: number; location?: string }): Promise<{ url: string; seen: Received[]; server: Server }> {
  const seen: Received[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
      const a = answer(req);
      res.writeHead(a.status, a.location ? { location: a.location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('--metrics-push-url with credentials and redirects (built CLI)', () => {
  let sim: Simulator;
  let dir: string;
  const servers: Server[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 11, size: 150 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-push-auth-'));
  });
  afterAll(async () => {
    await sim?.stop();
    for (const s of servers) s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends user:pass@ as basic auth, follows a redirect on the same origin, never one to another host', async () => {
    const elsewhere = await gateway(() => ({ status: 200 }));
    const own = await gateway((req) =>
      req.url === '/metrics/job/push-auth' ? { status: 307, location: '/moved/metrics/job/push-auth' } : { status: 307, location: `${elsewhere.url}/stolen` },
    );
    servers.push(elsewhere.server, own.server);
    const job = join(dir, 'push-auth.json');
    await writeFile(
      job,
      JSON.stringify({ name: 'push-auth', baseUrl: sim.url, region: { bbox: [...sim.world.bbox] }, rateLimit: { requestsPerSecond: 200, concurrency: 4 }, sweeps: { coord: { types: ['STOP'], maxPerRequest: 200 } } }),
    );
    const pushUrl = own.url.replace('http://', 'http://pusher:s%40cret@');
    const r = await runBuiltCli(['run', job, '--db', `pglite:${join(dir, 'db')}`, '--metrics-push-url', pushUrl, '--log-format', 'json'], {}, 230_000);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const basic = `Basic ${Buffer.from('pusher:s@cret').toString('base64')}`;
    expect(own.seen.map((s) => [s.method, s.path, s.authorization])).toEqual([
      ['PUT', '/metrics/job/push-auth', basic],
      ['PUT', '/moved/metrics/job/push-auth', basic],
    ]);
    expect(elsewhere.seen).toEqual([]);
    expect(r.stderr).toMatch(/redirected \(HTTP 307\) to another origin, http:\/\/127\.0\.0\.1:\d+: not followed/);
    expect(r.stderr).not.toContain('s@cret');
    expect(r.stderr).not.toContain('s%40cret');
  }, 300_000);
});
