import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { startSimulator, vehiclesAt, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/**
 * `run --now` (EFA_NOW) for snapshot jobs, through the BUILT CLI: three snapshots of the simulator's
 * moving world at 03:00, 08:00 and 15:00 land in three hours of efa.snapshot_hours, each stored at
 * the time asked for; bad values and nightly jobs are bad usage naming the option or the variable;
 * the report of a snapshot run draws its tiles and its parking and says what it saw.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/src/cli/main.js');
const clean: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined, EFA_BASE_URL: undefined, EFA_LOG_FORMAT: undefined, EFA_LOG_LEVEL: undefined, EFA_QUIET: undefined,
  EFA_VERBOSE: undefined, EFA_DEBUG: undefined, EFA_RPS: undefined, EFA_CONCURRENCY: undefined, EFA_DIALECT: undefined,
  EFA_METRICS_FILE: undefined, EFA_NOW: undefined,
};

function runBuilt(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

const region = [9.12, 48.74, 9.22, 48.8] as const;
const kinds = new Set(['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI']);
/** Two days ago (UTC): inside the retention and behind the clock whenever the test runs (--now refuses the future). */
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
/** The three times, as given: on the command line, in the environment, with an offset. */
const times = [
  { given: `${day}T03:00:00Z`, how: 'flag' },
  { given: `${day}T08:00:00Z`, how: 'env' },
  { given: `${day}T16:00:00+01:00`, how: 'flag' },
] as const;
const utcHours = [`${day}T03:00:00.000Z`, `${day}T08:00:00.000Z`, `${day}T15:00:00.000Z`];

describe.skipIf(!existsSync(cli))('snapshots at the time asked for: run --now / EFA_NOW (built CLI)', () => {
  let sim: Simulator;
  let dir: string;
  let db: TestDbUrl;
  let snapshotJob: string;
  let nightlyJob: string;
  const runs: RunSummary[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-now-'));
    db = await createTestDbUrl();
    snapshotJob = join(dir, 'moving.json');
    nightlyJob = join(dir, 'nightly.json');
    await writeFile(snapshotJob, JSON.stringify({
      name: 'moving', baseUrl: sim.url, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 200, concurrency: 4 },
      sweeps: { vehicles: { maxPerRequest: 50 }, parking: { realtime: true, maxPerRequest: 40 } },
    }));
    await writeFile(nightlyJob, JSON.stringify({
      name: 'nightly', baseUrl: sim.url, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 50, concurrency: 2 }, sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    }));
    for (const t of times) {
      // The demo: the simulator's moving world at the time the snapshot is taken as (sim --clock).
      sim.setClock(new Date(t.given));
      const r = t.how === 'flag'
        ? await runBuilt(['run', snapshotJob, '--db', db.url, '--json', '--now', t.given])
        : await runBuilt(['run', snapshotJob, '--db', db.url, '--json'], { EFA_NOW: t.given });
      expect(r.code, r.stderr).toBe(0);
      runs.push(JSON.parse(r.stdout) as RunSummary);
    }
  }, 600_000);
  /** Runs of the database by status: nothing opened, nothing left running. */
  const runCount = async (): Promise<Record<string, number>> => {
    const d = await openDb(db.url);
    try {
      const r = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM efa.runs GROUP BY status`.execute(d.kysely);
      return { running: 0, ...Object.fromEntries(r.rows.map((x) => [x.status, x.n])) };
    } finally {
      await d.close();
    }
  };
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('three runs at 03:00, 08:00 and 15:00 give three hours in efa.snapshot_hours, each snapshot stored at its --now', async () => {
    const d = await openDb(db.url);
    try {
      const hours = await sql<{ hour: Date; kind: string; snapshots: number }>`
        SELECT hour, kind, snapshots FROM efa.snapshot_hours WHERE job_name = 'moving' ORDER BY hour, kind`.execute(d.kysely);
      expect(hours.rows.map((h) => [new Date(h.hour).toISOString(), h.kind, h.snapshots])).toEqual(
        utcHours.flatMap((h) => [[h, 'parking', 1], [h, 'vehicles', 1]]),
      );
      const taken = await sql<{ run_id: string; taken_at: Date }>`
        SELECT run_id::text AS run_id, taken_at FROM efa.snapshots WHERE kind = 'vehicles' ORDER BY taken_at`.execute(d.kysely);
      expect(taken.rows.map((r) => [r.run_id, new Date(r.taken_at).toISOString()])).toEqual(runs.map((r, i) => [r.runId, utcHours[i]]));
      // The vehicles stored are the moving world's at that time, not at the wall clock's.
      for (const [i, at] of utcHours.entries()) {
        const truth = vehiclesAt(sim.world, new Date(at)).filter((v) => v.lon >= region[0] && v.lon <= region[2] && v.lat >= region[1] && v.lat <= region[3] && kinds.has(v.kind));
        const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE run_id = ${runs[i]?.runId}::bigint AND taken_at = ${new Date(at)}`.execute(d.kysely);
        expect(rows.rows[0]?.n, at).toBe(truth.length);
      }
    } finally {
      await d.close();
    }
    expect(runs.map((r) => r.snapshots?.map((s) => s.takenAt))).toEqual(utcHours.map((h) => [h, h]));
  });

  it('a value that is not an ISO time is bad usage naming --now or EFA_NOW, before the database is opened', async () => {
    const flag = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json', '--now', '2026-11-31T03:00:00Z']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--now: expected an ISO 8601 time with a zone');
    const env = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json'], { EFA_NOW: 'yesterday 3pm' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('EFA_NOW: expected an ISO 8601 time with a zone');
    expect(env.stderr).toContain('got \\"yesterday 3pm\\"');
    const noZone = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json', '--now', '2026-11-20T03:00:00']);
    expect(noZone.code).toBe(2);
    expect(noZone.stderr).toContain('--now: expected an ISO 8601 time with a zone');
    for (const r of [flag, env, noZone]) expect(r.stderr).not.toContain('opening the embedded database');
  }, 120_000);

  it('an instant already stored, even written in another zone, is said to be stored before any request: exit 0, no run left running', async () => {
    const runsBefore = await runCount();
    // 03:00Z written as 04:00+01:00, against an upstream that cannot be reached: any request would fail the run.
    const again = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json', '--json', '--base-url', 'http://127.0.0.1:9/efa', '--now', `${day}T04:00:00+01:00`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`job moving: a snapshot taken at ${day}T03:00:00.000Z is already stored \\(parking complete in run \\d+, vehicles complete in run \\d+\\): nothing to do`));
    expect(JSON.parse(again.stdout)).toMatchObject({ job: 'moving', status: 'already-stored', takenAt: `${day}T03:00:00.000Z`, exitCode: 0 });
    expect(await runCount()).toEqual({ ...runsBefore, running: 0 });
  }, 120_000);

  it('a time ahead of the clock by more than 5 minutes, or older than the retention, is bad usage naming --now and why', async () => {
    const runsBefore = await runCount();
    const future = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json', '--now', '9999-12-31T23:59:59Z']);
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/--now: 9999-12-31T23:59:59.000Z is ahead of this machine's clock \([^)]+\) by more than 5 minutes/);
    const past = await runBuilt(['run', snapshotJob, '--db', db.url, '--log-format', 'json'], { EFA_NOW: '2000-01-01T00:00:00Z' });
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/EFA_NOW: 2000-01-01T00:00:00.000Z is older than the job's retention of 90 days \(snapshots.retentionDays\)/);
    for (const r of [future, past]) expect(r.stderr).not.toContain('opening the embedded database');
    expect(await runCount()).toEqual(runsBefore);
  }, 120_000);

  it('a nightly job with --now is bad usage naming the option', async () => {
    const r = await runBuilt(['run', nightlyJob, '--db', db.url, '--log-format', 'json', '--now', '2026-11-20T03:00:00Z']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--now: job nightly is a nightly job; only a snapshot job/);
    const env = await runBuilt(['run', nightlyJob, '--db', db.url, '--log-format', 'json'], { EFA_NOW: '2026-11-20T03:00:00Z' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/EFA_NOW: job nightly is a nightly job/);
  }, 120_000);

  it('the report of a snapshot run draws its tiles and its parking, and says what it saw', async () => {
    const last = runs[2];
    const out = join(dir, 'snapshot.html');
    const r = await runBuilt(['report', '--db', db.url, '--run', last?.runId ?? '', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const html = await readFile(out, 'utf8');
    const vehicles = last?.snapshots?.find((s) => s.kind === 'vehicles');
    const parking = last?.snapshots?.find((s) => s.kind === 'parking');
    expect(vehicles?.rows).toBeGreaterThan(0);
    expect(parking?.rows).toBeGreaterThan(0);
    // What it saw, per kind, at the time it was taken as.
    expect(html).toContain('<h2>Snapshot</h2>');
    expect(html).toContain(`<td>vehicles</td><td>${day} 15:00:00 UTC</td>`);
    expect(html).toContain(`<td>parking</td><td>${day} 15:00:00 UTC</td>`);
    // Its tiles on the printable map, and the count in the problem line (not a claim over 0 tiles).
    const drawn = (html.match(/<rect class="tile tile-/g) ?? []).length;
    expect(drawn).toBeGreaterThan(0);
    expect(html).toContain(`Every swept tile (${drawn}) was answered completely.`);
    expect(html).not.toMatch(/0 rebuilt|rebuilt from the units below/);
    // Its parking: the parking snapshot's objects, with their free places, as the map's layer.
    expect(html).toMatch(new RegExp(`"parking":\\[\\[[-\\d.]+,[-\\d.]+,"[^"]*\\(\\d+ (of \\d+ )?free\\)"`));
    expect(html).toMatch(new RegExp(`"parking":${parking?.rows}[,}]`));
  }, 300_000);
});
