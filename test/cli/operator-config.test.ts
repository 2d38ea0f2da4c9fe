import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/run/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { builtCli } from '../helpers/built-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every variable the CLI reads, unset, so the machine's own environment does not leak into a test. */
const clean = {
  DATABASE_URL: undefined,
  EFA_BASE_URL: undefined,
  EFA_LOG_FORMAT: undefined,
  EFA_RPS: undefined,
  EFA_CONCURRENCY: undefined,
  EFA_DIALECT: undefined,
  EFA_METRICS_FILE: undefined,
  EFA_DEBUG: undefined,
  EFA_VERBOSE: undefined,
};

const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('configuration the way operators pass it', () => {
  let sim: Simulator;
  let dir: string;
  let deadBaseJob: string;
  let liveBaseJob: string;
  let dbUrl: string;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 5, size: 700 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-opcfg-'));
    dbUrl = `pglite:${join(dir, 'db')}`;
    const stop = sim.world.stops()[0]!;
    const job = (baseUrl: string) => ({
      name: 'opcfg',
      baseUrl,
      region: { bbox: [...sim.world.bbox] },
      rateLimit: { requestsPerSecond: 100, concurrency: 4 },
      sweeps: {
        coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 },
        servingLines: { forStops: true, refreshEveryNights: 3 },
        stopFinder: { names: [stop.name] },
        addInfo: { publicationStatus: 'current' },
      },
    });
    deadBaseJob = join(dir, 'dead-base.json');
    liveBaseJob = join(dir, 'live-base.json');
    // The job file's baseUrl answers nowhere: only $EFA_BASE_URL can make the first run work.
    await writeFile(deadBaseJob, JSON.stringify(job('http://127.0.0.1:9/efa')));
    await writeFile(liveBaseJob, JSON.stringify(job(sim.url)));
  });
  afterAll(async () => {
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('documents the environment variable of every common option in --help', async () => {
    const r = await runCli(['run', '--help'], clean);
    expect(r.code).toBe(0);
    for (const name of ['DATABASE_URL', 'EFA_BASE_URL', 'EFA_LOG_FORMAT', 'EFA_RPS', 'EFA_CONCURRENCY', 'EFA_DIALECT', 'EFA_METRICS_FILE', 'EFA_DEBUG']) {
      expect(r.stdout).toContain(`env: ${name}`);
    }
    expect((await runCli(['plan', '--help'], clean)).stdout).toContain('env: DATABASE_URL');
  });

  it('checks option values from the environment like those on the command line', async () => {
    const rps = await runCli(['run', 'no-such-job'], { ...clean, EFA_RPS: '0' });
    expect(rps.code).toBe(2);
    expect(jsonLines(rps.stderr)[0]).toMatchObject({ msg: 'EFA_RPS: expected a positive number, got "0"', exitCode: 2 });
    const dialect = await runCli(['run', 'no-such-job'], { ...clean, EFA_DIALECT: 'klingon' });
    expect(dialect.code).toBe(2);
    expect(dialect.stderr).toContain("value 'klingon' from env 'EFA_DIALECT' is invalid");
  });

  it('runs a job configured through the environment alone', async () => {
    const metrics = join(dir, 'efa_sync.prom');
    const r = await runCli(['run', deadBaseJob, '--json'], {
      ...clean,
      DATABASE_URL: dbUrl,
      EFA_BASE_URL: sim.url,
      EFA_RPS: '300',
      EFA_CONCURRENCY: '6',
      EFA_METRICS_FILE: metrics,
      EFA_LOG_FORMAT: 'pretty',
    });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.status).toBe('succeeded');
    expect(summary.db).toBe(dbUrl);
    expect(existsSync(join(dir, 'db'))).toBe(true);
    expect(await readFile(metrics, 'utf8')).toContain(`efa_sync_run_duration_seconds{efa_job="opcfg"} ${summary.durationS}`);
    // Pretty lines from EFA_LOG_FORMAT, not JSON objects.
    expect(r.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: run \d+ of job opcfg started/m);
    expect(r.stderr).not.toMatch(/^\{/m);
  }, 240_000);

  it('plans the next night from $DATABASE_URL: numbered tiles, the rolling ServingLines share, StopFinder on its own', async () => {
    const r = await runCli(['plan', deadBaseJob], { ...clean, DATABASE_URL: dbUrl });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/CoordInfo tiles of night 2, planned from \d+ known pins/);
    const numbers = [...r.stdout.matchAll(/^(\d+) +\d+\.\d{5} +\d+\.\d{5}/gm)].map((m) => Number(m[1]));
    expect(numbers.length).toBeGreaterThan(1);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(r.stdout).toMatch(/^stopFinder +1$/m);

    const json = await runCli(['plan', deadBaseJob, '--json'], { ...clean, DATABASE_URL: dbUrl });
    const plan = JSON.parse(json.stdout) as {
      coordTiles: unknown[];
      budget: { requests: Record<string, number>; total: number };
      known: { night: number; knownStops: number; servingLinesStops: number };
    };
    expect(plan.known.night).toBe(1);
    expect(plan.coordTiles).toHaveLength(numbers.length);
    // Night one fetched every stop's lines; with refreshEveryNights 3 night two refreshes about a third.
    expect(plan.known.servingLinesStops).toBeGreaterThan(0);
    expect(plan.known.servingLinesStops).toBeLessThan(plan.known.knownStops * 0.6);
    expect(plan.budget.requests['servingLines']).toBe(plan.known.servingLinesStops);
    expect(plan.budget.requests['stopFinder']).toBe(1);
    expect(plan.budget.total).toBe(Object.values(plan.budget.requests).reduce((a, b) => a + b, 0));
  }, 120_000);

  it('takes an empty variable for unset, and a metrics file it cannot write for a warning that keeps the exit code', async () => {
    const missing = join(dir, 'no-such-dir', 'efa_sync.prom');
    const r = await runCli(['run', liveBaseJob, '--metrics-file', missing], {
      ...clean,
      DATABASE_URL: dbUrl,
      EFA_BASE_URL: '',
      EFA_RPS: '',
      EFA_CONCURRENCY: '',
      EFA_DIALECT: '',
      EFA_LOG_FORMAT: '',
      EFA_DEBUG: '',
    });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const lines = jsonLines(r.stderr);
    const warning = lines.find((l) => String(l['msg']).startsWith('could not write the metrics file'));
    expect(warning).toMatchObject({ level: 'warn', metricsFile: missing });
    expect(String(warning?.['msg'])).toContain("the run's exit code 0 stands");
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  }, 240_000);

  it('npm start prints one duration per run: the run summary\'s, on stdout as in the log', async () => {
    const r = await runCli(['demo', '--size', '300', '--db', `pglite:${join(dir, 'demo-db')}`, '--log-format', 'json'], clean);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const logged = jsonLines(r.stderr)
      .map((l) => /^run \d+ succeeded in ([\d.]+)s/.exec(String(l['msg']))?.[1])
      .find((s) => s !== undefined);
    expect(logged).toBeDefined();
    const printed = /run \d+ succeeded in ([\d.]+) s/.exec(r.stdout)?.[1];
    expect(printed).toBe(logged);
    expect(r.stdout.match(/\b[\d.]+ s\b/g)).toEqual([`${logged} s`]);
  }, 240_000);
});

describe('errors the way a scheduler and a person read them', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-errors-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const badJob = async (): Promise<string> => {
    const file = join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'bad', baseUrl: 'http://127.0.0.1:9/efa', region: { bbox: [9, 48, 9.1, 48.1] }, rateLimit: { requestsPerSecond: 0, concurrency: 1 }, sweeps: {} }),
    );
    return file;
  };

  it('--log-format json: a bad job file is one JSON line on stderr', async () => {
    const r = await runCli(['run', await badJob(), '--db', 'pglite:memory', '--log-format', 'json'], clean);
    expect(r.code).toBe(2);
    const lines = jsonLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', error: 'ConfigError', exitCode: 2 });
    expect(String(lines[0]?.['msg'])).toContain('rateLimit.requestsPerSecond');
  });

  it.skipIf(!existsSync('/usr/bin/script'))('--log-format json on a terminal: still one JSON line, not the terminal\'s pretty default', async () => {
    // util-linux `script` gives the command a pseudo-terminal, as an operator's shell would.
    const command = [process.execPath, builtCli, 'run', await badJob(), '--db', 'pglite:memory', '--log-format', 'json']
      .map((a) => `'${a}'`)
      .join(' ');
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: root, env: { ...process.env, ...clean }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(2);
    const lines = r.out.replace(/\r/g, '').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'error', error: 'ConfigError', exitCode: 2 });
  });

  it('--log-format pretty: the same error is one readable line, whatever the output is', async () => {
    const r = await runCli(['run', await badJob(), '--db', 'pglite:memory', '--log-format', 'pretty'], clean);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] ERROR: .*rateLimit\.requestsPerSecond/);
  });

  it('EFA_LOG_FORMAT=json: a usage error from the option parser is one JSON line too', async () => {
    const r = await runCli(['runs', '--no-such-option'], { ...clean, EFA_LOG_FORMAT: 'json' });
    expect(r.code).toBe(2);
    const lines = jsonLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', exitCode: 2, msg: "unknown option '--no-such-option'" });
  });

  // Issue 30: a database refused before any run was opened said "lost the database … the next run resumes"
  // with exit 1; nothing was started, so it is a temporary failure (exit 75) that says so.
  it('an unreachable database before any run: exit 75 and one honest line naming it, redacted; no stack', async () => {
    const file = join(dir, 'ok.json');
    await writeFile(file, JSON.stringify({ name: 'nodb', baseUrl: 'http://127.0.0.1:9/efa', region: { bbox: [9, 48, 9.1, 48.1] }, rateLimit: { requestsPerSecond: 5, concurrency: 1 }, sweeps: { addInfo: { publicationStatus: 'current' } } }));
    const r = await runCli(['run', file, '--log-format', 'json'], { ...clean, DATABASE_URL: 'postgres://efa:hunter2@127.0.0.1:1/efa' });
    expect(r.code).toBe(75);
    // Besides the one error line, only which job file was loaded (issue 29 point 14).
    const all = jsonLines(r.stderr);
    expect(all.filter((l) => l['level'] !== 'error').map((l) => l['msg'])).toEqual([`job nodb loaded from ${file}`]);
    const lines = all.filter((l) => l['level'] === 'error');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', error: 'DatabaseUnavailableError', exitCode: 75 });
    expect(String(lines[0]?.['msg'])).toMatch(/^cannot reach the database postgres:\/\/efa:\*\*\*@127\.0\.0\.1:1\/efa \(connect ECONNREFUSED 127\.0\.0\.1:1\): nothing was started for job nodb; try again later/);
    expect(String(lines[0]?.['msg'])).not.toMatch(/lost the database|resumes/);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const debug = await runCli(['run', file, '--log-format', 'json'], { ...clean, DATABASE_URL: 'postgres://efa:hunter2@127.0.0.1:1/efa', EFA_DEBUG: '1' });
    expect(jsonLines(debug.stderr).find((l) => l['level'] === 'error')?.['err']).toMatchObject({ type: 'DatabaseUnavailableError', stack: expect.stringContaining('\n    at ') });
    expect(debug.stderr).not.toContain('hunter2');
  });
});
