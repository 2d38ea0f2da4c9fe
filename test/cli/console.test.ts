import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/**
 * The console of a run against a slow, refusing server, through the BUILT CLI (dist/, as installed):
 * rate changes and retries at debug with one summary line, --log-level/--quiet and their variables,
 * a status line that counts retries apart from failures, a line while the embedded database opens,
 * and one request count (summary, --json, log, report) with the probe named.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/src/cli/main.js');

/** Every variable the CLI reads, unset, so the machine's own environment does not leak in. */
const clean: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined, EFA_BASE_URL: undefined, EFA_LOG_FORMAT: undefined, EFA_LOG_LEVEL: undefined, EFA_QUIET: undefined,
  EFA_VERBOSE: undefined, EFA_DEBUG: undefined, EFA_RPS: undefined, EFA_CONCURRENCY: undefined, EFA_DIALECT: undefined,
  EFA_METRICS_FILE: undefined, EFA_NOW: undefined, NO_COLOR: '1',
};

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runBuilt(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The built CLI on a pseudo-terminal (util-linux `script`), as in an operator's shell: everything it drew. */
function runOnTerminal(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; screen: string }> {
  // A terminal of 160 columns, as an operator's window (script's own has no size).
  const command = `stty cols 160 rows 50; ${[process.execPath, cli, ...args].map((a) => `'${a}'`).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: root, env: { ...process.env, ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

const jsonLines = (text: string): Record<string, unknown>[] =>
  text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
const messages = (text: string): string[] => jsonLines(text).map((l) => String(l['msg']));

describe.skipIf(!existsSync(cli))('the console of a run against a slow, refusing server (built CLI)', () => {
  let sim: Simulator;
  let dir: string;
  let jobFile: string;
  let db: TestDbUrl;
  let first: Result;
  /** The first run as efa.runs has it. */
  let stored: { runId: string; requests: number; retries: number; byOp: Record<string, number> };

  beforeAll(async () => {
    // Allows 15 requests per second (429 with Retry-After 1 beyond) and fails a tenth with a 5xx:
    // the job's 60 req/s is lowered and raised again, and requests are retried.
    sim = await startSimulator({ port: 0, seed: 8, size: 900, faults: 'latency=5-20,error5xx=0.1,rate429=15:1,seed=3' });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-console-'));
    db = await createTestDbUrl();
    jobFile = join(dir, 'console.json');
    await writeFile(jobFile, JSON.stringify({
      name: 'console',
      baseUrl: sim.url,
      region: { bbox: [...sim.world.bbox] },
      rateLimit: { requestsPerSecond: 60, concurrency: 6, retries: 8 },
      sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true } },
    }));
    first = await runBuilt(['run', jobFile, '--db', db.url, '--log-format', 'json']);
    const d = await openDb(db.url);
    try {
      const row = await sql<{ run_id: string; requests: number; meta: { retries: number; requestsByOperation: Record<string, number> } }>`
        SELECT run_id::text AS run_id, requests, meta FROM efa.runs ORDER BY run_id DESC LIMIT 1`.execute(d.kysely);
      const r = row.rows[0];
      if (!r) throw new Error('the first run left no row in efa.runs');
      stored = { runId: r.run_id, requests: r.requests, retries: r.meta.retries, byOp: r.meta.requestsByOperation };
    } finally {
      await d.close();
    }
  }, 600_000);
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the run succeeds, with retries to talk about', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(stored.retries).toBeGreaterThan(0);
  });

  it('says it is opening the embedded database before the silence of its start', () => {
    // After the one line naming the job file it loaded (issue 29 point 14), before anything else.
    const [loaded, next] = messages(first.stderr);
    expect(loaded).toMatch(/^job \S+ loaded from \//);
    if (!db.url.startsWith('pglite:')) return expect(next).not.toMatch(/embedded/);
    expect(next).toBe(`opening the embedded database ${db.url.slice('pglite:'.length)}…`);
  });

  it('logs rate changes and retries at debug only, and one summary line of them at the end', () => {
    const lines = messages(first.stderr);
    expect(lines.filter((m) => /^rate (lowered|raised)|^retrying/.test(m))).toEqual([]);
    const rate = lines.filter((m) => m.startsWith('rate: '));
    expect(rate).toHaveLength(1);
    const m = /^rate: (\d+) changes?, between ([\d.]+) and ([\d.]+) rps; (\d+) retries$/.exec(rate[0] ?? '');
    expect(m, rate[0]).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
    expect(Number(m?.[2])).toBeLessThan(60);
    expect(Number(m?.[3])).toBeLessThanOrEqual(60);
    expect(Number(m?.[4])).toBe(stored.retries);
    // A run of a hundred requests and a dozen rate changes stays a short log (one line more than
    // before: the run names the job file it loaded, issue 29 point 14).
    expect(lines.length).toBeLessThan(16);
  });

  it('counts every request once: the log, efa.runs, requestsByOperation (probe named) and the report agree', async () => {
    const { byOp } = stored;
    expect(byOp['probe']).toBeGreaterThan(0);
    expect(Object.values(byOp).reduce((n, k) => n + k, 0)).toBe(stored.requests);
    const lines = messages(first.stderr);
    expect(lines.some((m) => m.startsWith(`run ${stored.runId} succeeded in `) && m.endsWith(`: ${stored.requests} requests (${stored.retries} retries, ${byOp['probe']} probing the upstream)`))).toBe(true);
    expect(lines.some((m) => m.startsWith(`coordInfo: ${byOp['coordInfo']} requests for `))).toBe(true);

    const out = join(dir, 'report.html');
    const r = await runBuilt(['report', '--db', db.url, '--run', stored.runId, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = await readFile(out, 'utf8');
    const row = /<tr><th>requests<\/th><td>([^<]*)<small>\(([^)]*)\)<\/small><\/td><\/tr>/.exec(html);
    expect(row?.[1]?.trim()).toBe(String(stored.requests));
    for (const [op, n] of Object.entries(byOp)) expect(row?.[2]).toContain(`${op} ${n}`);
    expect(html).toContain(`<tr><th>retries</th><td>${stored.retries}</td>`);
    expect(html).not.toContain('rebuilt from the units below');
  }, 300_000);

  it('--json: the summary object has the same count, the probe named', async () => {
    const r = await runBuilt(['run', jobFile, '--db', db.url, '--log-format', 'json', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.requestsByOperation['probe']).toBeGreaterThan(0);
    expect(Object.values(summary.requestsByOperation).reduce((n, k) => n + k, 0)).toBe(summary.requests);
    expect(summary.coord?.requests).toBe(summary.requestsByOperation['coordInfo']);
    expect(summary.rate?.highest).toBeLessThanOrEqual(60);
  }, 300_000);

  it('--quiet: warnings and errors only, the run\'s exit code unchanged', async () => {
    const r = await runBuilt(['run', jobFile, '--db', db.url, '--log-format', 'json', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stderr).filter((l) => l['level'] !== 'warn' && l['level'] !== 'error')).toEqual([]);
  }, 300_000);

  it('EFA_LOG_LEVEL=debug from the environment (and --log-level over it); a wrong level is bad usage', async () => {
    const bad = await runBuilt(['run', jobFile, '--db', db.url, '--log-format', 'json', '--log-level', 'chatty']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--log-level/);
    expect(bad.stderr).toMatch(/fatal, error, warn, info|debug, info, warn, error, fatal/);
    const r = await runBuilt(['run', jobFile, '--db', db.url, '--log-format', 'json', '--full'], { EFA_LOG_LEVEL: 'debug' });
    expect(r.code, r.stderr).toBe(0);
    const levels = new Set(jsonLines(r.stderr).map((l) => l['level']));
    expect(levels.has('debug')).toBe(true);
    expect(messages(r.stderr).some((m) => /^rate (lowered|raised) to /.test(m) || /^retrying /.test(m))).toBe(true);
  }, 300_000);

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal (EFA_VERBOSE=1 still works): the status line counts retries and failures apart, with an ETA', async () => {
    const r = await runOnTerminal(['run', jobFile, '--db', db.url, '--full'], { EFA_VERBOSE: '1' });
    expect(r.code, r.screen).toBe(0);
    const frames = r.screen.split(/\r|\n|\x1b\[[0-9;]*[A-Za-z]/).filter((f) => / \[[#.]{24}\] \d+\/\d+ · /.test(f));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      expect(f).toMatch(/ · \d+ retries · \d+ failed/);
      expect(f).not.toMatch(/errors/);
    }
    expect(frames.some((f) => / · [1-9]\d* retries · 0 failed/.test(f))).toBe(true);
    expect(frames.some((f) => / · ETA (\d+s|\d+m\d\ds)$/.test(f))).toBe(true);
    // EFA_VERBOSE=1: the rate changes are there, as DEBUG lines.
    expect(r.screen).toMatch(/DEBUG: rate (lowered|raised) to /);
  }, 300_000);
});
