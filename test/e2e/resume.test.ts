import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runCli } from '../helpers/cli.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { builtCli } from '../helpers/built-cli.js';
import { startGate } from '../helpers/gate.js';
import { cliRunDate } from '../helpers/clock.js';

// The CLI's run date, which the simulator's day follows (see test/helpers/clock.ts).
const today = cliRunDate();
const region = [9.1, 48.72, 9.26, 48.82] as const;
const root = fileURLToPath(new URL('../..', import.meta.url));

function job(name: string, rps: number) {
  return {
    name,
    baseUrl: 'http://127.0.0.1:1/replaced-by-base-url',
    region: { bbox: [...region] },
    rateLimit: { requestsPerSecond: rps, concurrency: 4 },
    sweeps: {
      coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 },
      opArea: { mode: 'ALL', geometry: true },
      servingLines: { forStops: true, refreshEveryNights: 1 },
      addInfo: { publicationStatus: 'current' },
    },
  };
}

/**
 * Starts `efa-sync run` and SIGKILLs it, like a machine losing power, `delayMs` after its log
 * shows `pattern` (a phase), so the moment is random but the phase is known to have work left.
 */
function runAndKillDuring(args: string[], pattern: RegExp, delayMs: number): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    let armed = false;
    child.stderr.on('data', (d: Buffer) => {
      log += d.toString();
      if (!armed && pattern.test(log)) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.on('close', (code) => resolve({ code, log }));
  });
}

describe('crash safety: runs killed at any moment resume to the same database', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 21, size: 1500, today });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-resume-'));
    file = join(dir, 'resume.json');
    await writeFile(file, JSON.stringify(job('resume', 20)));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('survives SIGKILL during requests, tile commits, unit commits and finalisation', async () => {
    const args = ['run', file, '--db', db.url, '--base-url', sim.url, '--json'];
    // Failpoints kill the process at exact phases (during requests, inside a tile's transaction,
    // inside a unit's transaction, during finalisation); one more kill comes from outside at a
    // random moment of the ServingLines phase. Each attempt resumes the one before.
    const kill = async (phase: string): Promise<void> => {
      const r = await runCli(args, { EFA_SYNC_FAILPOINT: phase }, 180_000);
      expect(r.code, `killed at ${phase}: ${r.stderr.slice(-500)}`).toBeNull();
    };
    await kill('request:4');
    await kill('tile-commit:3');
    const delay = Math.floor(Math.random() * 1500);
    const outside = await runAndKillDuring(args, /sweeping servingLines/, delay);
    expect(outside.code, `killed ${delay} ms into servingLines: ${outside.log.slice(-500)}`).toBeNull();
    await kill('unit-commit:10');
    await kill('finalise:1');
    const last = await runCli(args, {}, 180_000);
    expect(last.code, last.stderr.slice(-800)).toBe(0);
    const summary = JSON.parse(last.stdout) as RunSummary;
    expect(summary.status).toBe('succeeded');
    expect(summary.resumed).toBe(true);

    const opened = await openDb(db.url);
    try {
      const truth = truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
      expect(await dbComparable(opened)).toEqual(truth);
      // Nothing twice: every key was inserted exactly once, all in the one resumed run.
      const twice = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (SELECT relation, key FROM efa.changes WHERE op = 'insert' GROUP BY relation, key HAVING count(*) > 1) d`.execute(opened.kysely);
      expect(twice.rows[0]?.n).toBe(0);
      const runs = await opened.kysely.selectFrom('efa.runs').select(['run_id', 'status']).execute();
      expect(runs).toEqual([{ run_id: summary.runId, status: 'succeeded' }]);
      const pinsInserted = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.changes WHERE relation = 'pins' AND op = 'insert'`.execute(opened.kysely);
      expect(pinsInserted.rows[0]?.n).toBe(truth.pins.length);
    } finally {
      await opened.close();
    }
  }, 900_000);
});

describe('one run at a time, and partial runs delete nothing', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 22, size: 800, today });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-lock-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a second run of the same job exits 4 and names the holder run', async () => {
    const file = join(dir, 'slow.json');
    await writeFile(file, JSON.stringify(job('slow', 50)));
    // The first run waits at a shut gate once it holds the lock, alive and mid-night, until the
    // second has given up; then it finishes at its own rate.
    const gate = await startGate(sim.url);
    try {
      const child = spawn(process.execPath, [builtCli, 'run', file, '--db', db.url, '--base-url', gate.url], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      const firstDone = new Promise<number | null>((resolve) => child.on('close', resolve));
      // The first run announces its run id on stderr once it holds the lock; start the second then.
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const watch = (d: Buffer): void => {
          seen += d.toString();
          if (!/run \d+ of job slow started/.test(seen)) return;
          child.stderr.off('data', watch);
          child.stderr.resume();
          gate.shut();
          resolve();
        };
        child.stderr.on('data', watch);
        child.on('close', () => reject(new Error(`first run ended before starting: ${seen.slice(-500)}`)));
      });
      const second = await runCli(['run', file, '--db', db.url, '--base-url', sim.url, '--json']);
      expect(second.code).toBe(4);
      expect(second.stderr).toMatch(/run 1\b/);
      gate.open();
      expect(await firstDone).toBe(0);
    } finally {
      gate.open();
      await gate.stop();
    }
  }, 400_000);

  it('a tile that fails keeps its objects; the next complete run finishes the job', async () => {
    const file = join(dir, 'partial.json');
    await writeFile(file, JSON.stringify({ ...job('partial', 200), sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 } } }));
    const ok = await runCli(['run', file, '--db', db.url, '--base-url', sim.url]);
    expect(ok.code).toBe(0);
    // Remove a pin that lies in the area that will fail, then fail that area.
    const victim = [...sim.world.pinsInBox([9.165, 48.765, 9.175, 48.775], ['STOP', 'POI_POINT'])][0]!;
    sim.world.removePin(victim.key);
    const victimDeleted = async (): Promise<boolean> => {
      const opened = await openDb(db.url);
      try {
        const row = await sql<{ deleted: boolean }>`
          SELECT deleted_at IS NOT NULL AS deleted FROM efa.pins WHERE source = 'partial' AND name = ${victim.name} AND abs(ST_X(geom) - ${victim.lon}) < 1e-6`.execute(opened.kysely);
        expect(row.rows).toHaveLength(1);
        return row.rows[0]!.deleted;
      } finally {
        await opened.close();
      }
    };
    const flaky = await startSimulator({ port: 0, world: sim.world, today, faults: `failbox=${victim.lon}:${victim.lat}` });
    try {
      const partial = await runCli(['run', file, '--db', db.url, '--base-url', flaky.url, '--json']);
      expect(partial.code).toBe(3);
      expect(await victimDeleted()).toBe(false);
    } finally {
      await flaky.stop();
    }
    const complete = await runCli(['run', file, '--db', db.url, '--base-url', sim.url, '--json']);
    expect(complete.code).toBe(0);
    expect(await victimDeleted()).toBe(true);
  }, 400_000);
});
