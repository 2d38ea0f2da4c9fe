import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleQuery } from '../../src/cli/demo.js';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { World } from '../../src/sim/world.js';
import { jsonLines, runBuiltCli, runBuiltCliWhile, spawnBuiltCli, type BuiltCliResult } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/*
 * Issue 30, as an operator and an analyst meet it on the tenth night, through the built CLI: the report
 * of run 12 (not run 9), lines per stop as the simulator's truth counts them, a run stopped by SIGTERM
 * or SIGINT recorded `stopped` and resumed, `--json` for a stopped run, and the demo's report beside its
 * database rather than in the working directory.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Lines serving a stop in the simulated world, as efa.stop_summary counts them: distinct (mot, number). */
function truthLineCount(world: World, stopId: string): number {
  return new Set(world.linesAtStop(stopId).map((l) => `${l.mot}/${l.number}`)).size;
}

const until = async (what: string, check: () => boolean, ms = 120_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Starts a run, stops it with `signal` once its sweep is under way, and returns what it printed. */
function stopRun(args: readonly string[], signal: 'SIGTERM' | 'SIGINT'): Promise<BuiltCliResult> {
  return runBuiltCliWhile(args, async (stderr, child) => {
    await until('the sweep to start', () => /"msg":"coordInfo: /.test(stderr()));
    await new Promise((r) => setTimeout(r, 500));
    child.kill(signal);
  });
}

interface RunRow {
  run_id: string | number;
  status: string;
  requests: number;
  duration_s: number | null;
}

async function runsOf(dbUrl: string, job: string): Promise<RunRow[]> {
  const r = await runBuiltCli(['runs', '--db', dbUrl, '--job', job, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as RunRow[];
}

describe('the tenth night, through the built CLI (issue 30)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let jobFile: string;
  beforeAll(async () => {
    // Slow answers keep a run in its sweep long enough to stop it there.
    sim = await startSimulator({ port: 0, seed: 23, size: 1200, faults: 'latency=20-50' });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-night10-'));
    jobFile = join(dir, 'night.json');
    await writeFile(
      jobFile,
      JSON.stringify({
        name: 'night',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 25, concurrency: 2 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true } },
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM with --json: the summary on stdout, exit 143, `runs` shows it stopped with its requests; the next run resumes it and says how it ended', async () => {
    const stopped = await stopRun(['run', jobFile, '--db', db.url, '--json', '--log-format', 'json'], 'SIGTERM');
    expect(stopped.code, stopped.stderr.slice(-1500)).toBe(143);
    const summary = JSON.parse(stopped.stdout.trim()) as { runId: string; status: string; exitCode: number; requests: number; job: string };
    expect(summary).toMatchObject({ status: 'stopped', exitCode: 143, job: 'night' });
    expect(summary.requests).toBeGreaterThan(0);
    const last = jsonLines(stopped.stderr).at(-1);
    expect(last).toMatchObject({ level: 'error', error: 'RunStoppedError', exitCode: 143 });
    expect(String(last?.['msg'])).toMatch(new RegExp(`^run ${summary.runId} stopped by SIGTERM after ${summary.requests} requests \\(recorded as stopped\\)`));

    const [recorded] = await runsOf(db.url, 'night');
    expect(recorded).toMatchObject({ status: 'stopped', requests: summary.requests });
    expect(String(recorded?.run_id)).toBe(summary.runId);

    const resumed = await runBuiltCli(['run', jobFile, '--db', db.url, '--json', '--log-format', 'json'], {}, 300_000);
    expect(resumed.code, resumed.stderr.slice(-1500)).toBe(0);
    expect(resumed.stderr).toContain(`resuming run ${summary.runId} of job night`);
    const end = JSON.parse(resumed.stdout.trim()) as { runId: string; status: string; requests: number };
    expect(end).toMatchObject({ runId: summary.runId, status: 'succeeded' });
    expect(end.requests).toBeGreaterThan(summary.requests);
    // The human end of the run on stderr, --json or not.
    expect(jsonLines(resumed.stderr).map((l) => String(l['msg']))).toContainEqual(expect.stringMatching(new RegExp(`^run ${summary.runId} succeeded in [\\d.]+s: ${end.requests} requests`)));
    expect(await runsOf(db.url, 'night')).toEqual([expect.objectContaining({ status: 'succeeded', requests: end.requests })]);
  }, 600_000);

  it('lines per stop in efa.stop_summary and in the demo query equal the simulator\'s truth: lines, not line-directions', async () => {
    // The night of the test above (its own sweep when run alone).
    if ((await runsOf(db.url, 'night')).length === 0) expect((await runBuiltCli(['run', jobFile, '--db', db.url], {}, 300_000)).code).toBe(0);
    const opened = await openDb(db.url);
    try {
      const rows = (await sql<{ stop_id: string; line_count: number; directions: number }>`
        SELECT s.stop_id, s.line_count,
               (SELECT count(*)::int FROM efa.stop_lines x WHERE x.source = s.source AND x.stop_id = s.stop_id AND x.deleted_at IS NULL) AS directions
        FROM efa.stop_summary s`.execute(opened.kysely)).rows;
      expect(rows.length).toBeGreaterThan(10);
      for (const r of rows) expect(r.line_count, `stop ${r.stop_id}`).toBe(truthLineCount(sim.world, r.stop_id));
      // The world serves stops in both directions: a count of stop-lines would differ.
      expect(rows.some((r) => r.directions > r.line_count)).toBe(true);
      const top = (await sql<{ stop_id: string; lines: number }>`${sql.raw(exampleQuery.replace(/;$/, ''))}`.execute(opened.kysely)).rows;
      expect(top.length).toBe(5);
      for (const r of top) expect(Number(r.lines), `stop ${r.stop_id}`).toBe(truthLineCount(sim.world, r.stop_id));
      const most = Math.max(...rows.map((r) => r.line_count));
      expect(Number(top[0]?.lines)).toBe(most);
    } finally {
      await opened.close();
    }
  }, 600_000);

  it('SIGINT, then --full: stopped, then closed with a clear line and a fresh run', async () => {
    const stopped = await stopRun(['run', jobFile, '--db', db.url, '--log-format', 'json'], 'SIGINT');
    expect(stopped.code, stopped.stderr.slice(-1500)).toBe(130);
    const [run] = await runsOf(db.url, 'night');
    expect(run?.status).toBe('stopped');
    const full = await runBuiltCli(['run', jobFile, '--db', db.url, '--full', '--log-format', 'json'], {}, 300_000);
    expect(full.code, full.stderr.slice(-1500)).toBe(0);
    expect(full.stderr).toContain(`--full: not resuming run ${run?.run_id} of job night (stopped by a signal after ${run?.requests} requests)`);
    const [fresh, closed] = await runsOf(db.url, 'night');
    expect(fresh?.status).toBe('succeeded');
    expect(closed).toMatchObject({ status: 'failed' });
    expect(String(closed?.run_id)).toBe(String(run?.run_id));
    // Closed later, it keeps the end it stopped at: its duration does not grow by the time in between.
    expect(closed?.duration_s).toBe(run?.duration_s);
  }, 600_000);

  it('a signal after the run\'s end is committed does not rewrite it: the run stays succeeded, exit 0 (issue 45)', async () => {
    const child = spawnBuiltCli(['run', jobFile, '--db', db.url, '--full', '--verbose', '--log-format', 'json'], { EFA_SYNC_FAILPOINT: 'ended:4000ms' });
    child.stdin.end();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Said after the end's commit and before the failpoint holds the process (the upkeep's place).
    await until('the end to be committed', () => /its end is committed; upkeep follows/.test(stderr), 300_000);
    child.kill('SIGTERM');
    const code = await exited;
    expect(code, stderr.slice(-1500)).toBe(0);
    // The signal lands in the upkeep, or (its log line written only once the failpoint let go) as the
    // process ends: either way the run's end stands, and if the signal is answered it says so.
    expect(stderr).not.toMatch(/stopped by SIGTERM/);
    if (/SIGTERM after run/.test(stderr)) expect(stderr).toMatch(/SIGTERM after run \d+ had ended succeeded: its outcome stands/);
    const [last] = await runsOf(db.url, 'night');
    expect(last?.status).toBe('succeeded');
  }, 600_000);

  it('report shows run 12, not run 9, once there are twelve', async () => {
    const opened = await openDb(db.url);
    try {
      await sql`INSERT INTO efa.runs (job_name, source, job_hash, status, started_at, finished_at)
        SELECT 'filler', 'filler', 'h', 'succeeded', now(), now() FROM generate_series(1, 12)`.execute(opened.kysely);
      const newest = (await sql<{ id: string }>`SELECT max(run_id)::text AS id FROM efa.runs`.execute(opened.kysely)).rows[0]?.id;
      expect(Number(newest)).toBeGreaterThanOrEqual(12);
      // A newest id with one digit more than a run id before it: text order would pick the other.
      expect(newest?.length).toBeGreaterThan(1);
    } finally {
      await opened.close();
    }
    const all = await runBuiltCli(['runs', '--db', db.url, '--limit', '100', '--json']);
    const ids = (JSON.parse(all.stdout) as RunRow[]).map((r) => Number(r.run_id));
    const out = join(dir, 'r.html');
    const r = await runBuiltCli(['report', '--db', db.url, '--out', out, '--json']);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(String((JSON.parse(r.stdout) as { runId: string }).runId)).toBe(String(Math.max(...ids)));
  }, 300_000);

  it('npm start (demo) writes its report beside its embedded database, not into the working directory', async () => {
    const checkoutReport = join(root, '.efa-sync', 'report.html');
    const before = existsSync(checkoutReport) ? statSync(checkoutReport).mtimeMs : undefined;
    const dbDir = join(dir, 'demo', 'db');
    const r = await runBuiltCli(['demo', '--size', '300', '--db', `pglite:${dbDir}`, '--log-format', 'json'], {}, 300_000);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    expect(existsSync(join(dir, 'demo', 'report.html'))).toBe(true);
    expect(r.stdout).toContain(join(dir, 'demo', 'report.html'));
    expect(existsSync(checkoutReport) ? statSync(checkoutReport).mtimeMs : undefined).toBe(before);
  }, 300_000);
});
