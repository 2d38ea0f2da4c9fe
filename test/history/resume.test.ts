import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { HISTORY_RELATIONS } from '../../src/history/index.js';
import { changeWorld, startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runCli } from '../helpers/cli.js';
import { cliRunDate } from '../helpers/clock.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/**
 * A night killed at several moments (SIGKILL through the failpoints test/e2e/resume.test.ts uses:
 * inside a tile's transaction, inside a unit's, during finalisation) and resumed keeps exactly the
 * history an uninterrupted night keeps: the versions are written in the statements that change the
 * rows, so a rolled-back transaction takes its versions along and a resumed run writes each once.
 */
// The CLI's run date, which the simulator's day follows (see test/helpers/clock.ts).
const today = cliRunDate();
const region = [9.1, 48.72, 9.26, 48.82] as const;

const job = {
  name: 'hist-resume',
  baseUrl: 'http://127.0.0.1:1/replaced-by-base-url',
  region: { bbox: [...region] },
  rateLimit: { requestsPerSecond: 200, concurrency: 4 },
  sweeps: {
    coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 },
    opArea: { mode: 'ALL', geometry: true },
    servingLines: { forStops: true, refreshEveryNights: 1 },
    addInfo: { publicationStatus: 'current' },
  },
};

/**
 * Every kept version of every relation, with its times named by the run they come from ("start of
 * run 2", "gone": the row's deleted_at / ended_at) and checked against that run on the way: two
 * databases with the same runs compare equal exactly when their histories are the same.
 */
async function historyOf(url: string): Promise<Record<string, string[]>> {
  const db = await openDb(url);
  try {
    const out: Record<string, string[]> = {};
    for (const r of HISTORY_RELATIONS) {
      const gone = r === 'notices' ? 'ended_at' : 'deleted_at';
      const rows = await sql<{ j: Record<string, unknown>; from_ok: boolean; to_ok: boolean }>`
        SELECT to_jsonb(h) - 'hist_id' - 'fid' - 'valid' AS j,
               lower(h.valid) = f.started_at AS from_ok,
               CASE h.ended_by WHEN 'update' THEN upper(h.valid) = t.started_at
                               ELSE upper(h.valid) = (SELECT ${sql.ref(`x.${gone}`)} FROM ${sql.table(`efa.${r}`)} x WHERE x.fid = h.fid) END AS to_ok
        FROM ${sql.table(`efa.${r}_history`)} h
        JOIN efa.runs f ON f.run_id = h.changed_run
        LEFT JOIN efa.runs t ON t.run_id = h.replaced_by`.execute(db.kysely);
      for (const row of rows.rows) {
        expect(row.from_ok, `${r}: a version starts at its run's start`).toBe(true);
        expect(row.to_ok, `${r}: a version ends where the next one starts, or when it was marked gone`).toBe(true);
      }
      out[r] = rows.rows.map((x) => JSON.stringify(Object.fromEntries(Object.entries(x.j).sort(([a], [b]) => (a < b ? -1 : 1))))).sort();
    }
    return out;
  } finally {
    await db.close();
  }
}

describe('history survives a crash: a resumed night keeps what an uninterrupted one keeps', () => {
  let sim: Simulator;
  let straight: TestDbUrl;
  let crashed: TestDbUrl;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 23, size: 1000, today });
    straight = await createTestDbUrl();
    crashed = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-hist-resume-'));
    file = join(dir, 'hist-resume.json');
    await writeFile(file, JSON.stringify(job));
  });
  afterAll(async () => {
    await sim?.stop();
    await straight?.drop();
    await crashed?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('kills during tile commits, unit commits and finalisation leave the same versions', async () => {
    const args = (url: string): string[] => ['run', file, '--db', url, '--base-url', sim.url, '--json'];
    const ok = async (url: string): Promise<RunSummary> => {
      const r = await runCli(args(url), {}, 180_000);
      expect(r.code, r.stderr.slice(-800)).toBe(0);
      return JSON.parse(r.stdout) as RunSummary;
    };
    await ok(straight.url);
    await ok(crashed.url);
    // The world changes between the nights: pins removed, moved and added, a stop renamed, a line
    // rerouted, a notice ended.
    const w = sim.world;
    const before = w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
    changeWorld(w, 0.06, 5);
    const stop = w.truth([...region], { types: ['STOP'] }).pins[4]!;
    w.renamePin(stop.key, `${stop.name} (neu)`);
    w.changeLine(before.lines[0]!.id, { direction: `${before.lines[0]!.direction} (Umleitung)` });
    if (before.notices[0]) w.endNotice(before.notices[0].id);

    const second = await ok(straight.url);
    for (const phase of ['tile-commit:3', 'unit-commit:10', 'finalise:1']) {
      const r = await runCli(args(crashed.url), { EFA_SYNC_FAILPOINT: phase }, 180_000);
      expect(r.code, `killed at ${phase}: ${r.stderr.slice(-500)}`).toBeNull();
    }
    const resumed = await ok(crashed.url);
    expect(resumed.resumed).toBe(true);
    expect(resumed.runId).toBe(second.runId);
    expect(resumed.relations).toEqual(second.relations);

    const a = await historyOf(straight.url);
    const b = await historyOf(crashed.url);
    expect(a['pins']!.length).toBeGreaterThan(10);
    expect(a['lines']!.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
  }, 900_000);
});
