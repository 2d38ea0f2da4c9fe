import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { runBuiltCli, runBuiltCliWhile, type BuiltCliResult } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/*
 * Issue 45: an upstream that stops answering mid-run is a pause, not a lost night. The simulator is
 * stopped under a running `efa-sync run` (its port refuses) and started again on the same port.
 */

const world: SimulatorOptions = { seed: 45, size: 800, faults: 'latency=5-15' };

const until = async (what: string, check: () => boolean, ms = 60_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

interface Summary {
  runId: string;
  status: string;
  exitCode: number;
  requests: number;
  requestsByOperation: Record<string, number>;
  failures: unknown[];
  relations: Record<string, { deleted: number }>;
  outage?: { outages: number; probes: number; waitedS: number };
}

/** Starts a run; `during` gets its stderr so far and acts on the simulator while it runs. */
function runWith(args: readonly string[], during: (stderr: () => string, kill: () => void) => Promise<void>): Promise<BuiltCliResult> {
  return runBuiltCliWhile(args, (stderr, child) => during(stderr, () => child.kill('SIGKILL')));
}

describe('an outage of the upstream mid-run (issue 45)', () => {
  let db: TestDbUrl;
  let dir: string;
  let port: number;
  let sims: Simulator[] = [];
  const served = (): number => sims.reduce((n, s) => n + s.requestLog.length, 0);
  const jobFile = (name: string, outageWaitS: number): string => join(dir, `${name}-${outageWaitS}.json`);
  const writeJob = async (name: string, outageWaitS: number, url: string, bbox: readonly number[]): Promise<string> => {
    const file = jobFile(name, outageWaitS);
    await writeFile(
      file,
      JSON.stringify({
        name,
        baseUrl: url,
        region: { bbox },
        rateLimit: { requestsPerSecond: 40, concurrency: 4 },
        limits: { outageWaitS },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true } },
      }),
    );
    return file;
  };

  beforeAll(async () => {
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-outage-'));
  }, 60_000);
  afterEach(async () => {
    await Promise.all(sims.map((s) => s.stop().catch(() => undefined)));
    sims = [];
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('an outage shorter than limits.outageWaitS: the run waits, probing, and ends succeeded with every unit', async () => {
    const first = await startSimulator({ ...world, port: 0 });
    sims.push(first);
    port = first.port;
    const file = await writeJob('pause', 60, first.url, first.world.bbox);
    let sentBeforeOutage = 0;
    const run = await runWith(['run', file, '--db', db.url, '--json', '--log-format', 'json'], async (stderr) => {
      await until('the sweep to be under way', () => first.requestLog.length >= 40);
      await first.stop();
      sentBeforeOutage = served();
      await until('the outage to be noticed', () => stderr().includes('the upstream stopped answering'));
      sims.push(await startSimulator({ ...world, port }));
    });
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(run.stdout.trim()) as Summary;
    expect(summary.status).toBe('succeeded');
    expect(summary.failures).toEqual([]);
    expect(summary.outage?.outages).toBe(1);
    expect(summary.requestsByOperation['outageProbe']).toBe(summary.outage?.probes);
    // Every request counted; the ones the dead port refused are few (the in-flight ones and the probes).
    const refused = summary.requests - served();
    expect(sentBeforeOutage).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(4 + (summary.outage?.probes ?? 0));
    expect(run.stderr).toContain('the upstream answers again after');
  }, 120_000);

  it('an outage longer than limits.outageWaitS: exit 75, the run stopped and resumable; the next run resumes it, exit 0, nothing marked gone', async () => {
    const first = await startSimulator({ ...world, port: 0 });
    sims.push(first);
    port = first.port;
    const file = await writeJob('long', 2, first.url, first.world.bbox);
    let downAt = 0;
    const stopped = await runWith(['run', file, '--db', db.url, '--json', '--log-format', 'json'], async () => {
      await until('the sweep to be under way', () => first.requestLog.length >= 40);
      await first.stop();
      downAt = Date.now();
    });
    expect(stopped.code, stopped.stderr.slice(-2000)).toBe(75);
    // The bound (2 s) and its last probe: well within the bound plus 30 s.
    expect(Date.now() - downAt).toBeLessThan(2_000 + 30_000);
    const summary = JSON.parse(stopped.stdout.trim()) as Summary;
    expect(summary).toMatchObject({ status: 'stopped', exitCode: 75 });
    expect(stopped.stderr).toMatch(/did not answer again within \d+ s \(limits\.outageWaitS/);

    const opened = await openDb(db.url);
    let recorded: { status: string; requests: number; finished_at: Date | null } | undefined;
    try {
      recorded = (await sql<{ status: string; requests: number; finished_at: Date | null }>`
        SELECT status, requests, finished_at FROM efa.runs WHERE run_id = ${summary.runId}::bigint`.execute(opened.kysely)).rows[0];
    } finally {
      await opened.close();
    }
    expect(recorded).toMatchObject({ status: 'stopped', requests: summary.requests });
    expect(recorded?.finished_at).not.toBeNull();

    sims.push(await startSimulator({ ...world, port }));
    const resumed = await runBuiltCli(['run', file, '--db', db.url, '--json', '--log-format', 'json'], {}, 120_000);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(resumed.stderr).toContain(`resuming run ${summary.runId} of job long`);
    const end = JSON.parse(resumed.stdout.trim()) as Summary;
    expect(end).toMatchObject({ runId: summary.runId, status: 'succeeded' });
    for (const [relation, counts] of Object.entries(end.relations)) expect(counts.deleted, relation).toBe(0);
  }, 120_000);

  it('SIGKILL mid-run: efa.runs.requests is at least what the upstream received, and stays so after the resume', async () => {
    const sim = await startSimulator({ ...world, port: 0 });
    sims.push(sim);
    const file = await writeJob('killed', 60, sim.url, sim.world.bbox);
    const killed = await runWith(['run', file, '--db', db.url, '--log-format', 'json'], async (_stderr, kill) => {
      await until('the sweep to be under way', () => sim.requestLog.length >= 60);
      kill();
    });
    expect(killed.code).toBeNull();
    const received = sim.requestLog.length;
    const requestsOf = async (): Promise<{ run_id: string; status: string; requests: number }[]> => {
      const opened = await openDb(db.url);
      try {
        return (await sql<{ run_id: string; status: string; requests: number }>`
          SELECT run_id::text AS run_id, status, requests FROM efa.runs WHERE job_name = 'killed'`.execute(opened.kysely)).rows;
      } finally {
        await opened.close();
      }
    };
    const [left] = await requestsOf();
    expect(left?.status).toBe('running');
    expect(left?.requests).toBeGreaterThanOrEqual(received);

    const resumed = await runBuiltCli(['run', file, '--db', db.url, '--json', '--log-format', 'json'], {}, 120_000);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    const [done] = await requestsOf();
    expect(done).toMatchObject({ run_id: left?.run_id, status: 'succeeded' });
    expect(done?.requests).toBeGreaterThanOrEqual(sim.requestLog.length);
  }, 120_000);
});
