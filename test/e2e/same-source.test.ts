import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb, type Db } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { createTestDbUrl, dbKind, openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

/**
 * Issue 22.5 (e): two jobs of one source at once, both sweeping ServingLines for the same stops.
 * Each run's writer merges a batch of stops' lines in one transaction, one merge per stop, so the
 * two runs took row locks on the shared lines in different orders and PostgreSQL killed one of
 * them with a deadlock (a failed unit, exit 3). Now both succeed and the lines are stored once.
 * On PGlite (one connection) the two runs take turns; the test holds there too.
 */

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';

describe('two jobs of one source at once', () => {
  let sim: Simulator;
  let t: TestDb;
  let second: Db | undefined;
  let summaries: RunSummary[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 4, size: 3000, today });
    t = await openTestDb();
    // Migrated first: two first migrations at once are the next describe's subject.
    await migrate(t.db);
    // Each job on a pool of its own, as two processes would be.
    second = dbKind() === 'postgres' ? await openDb(t.url) : undefined;
    const job = (name: string, concurrency: number) =>
      inlineJob({
        name,
        source: 'shared',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] as [number, number, number, number] },
        rateLimit: { requestsPerSecond: 1000, concurrency },
        sweeps: { coord: { types: ['STOP'], maxPerRequest: 500 }, servingLines: { forStops: true, refreshEveryNights: 1 } },
      });
    summaries = await Promise.all([
      runJob({ loaded: job('lines-a', 8), db: t.db, log: silent, today }),
      runJob({ loaded: job('lines-b', 8), db: second ?? t.db, log: silent, today }),
    ]);
  }, 600_000);

  afterAll(async () => {
    await second?.close();
    await t?.dispose();
    await sim?.stop();
  });

  it('both succeed: no unit failed on a deadlock', () => {
    for (const s of summaries) {
      expect(s.failures.map((f) => f.error)).toEqual([]);
      expect(s.status).toBe('succeeded');
      expect(s.exitCode).toBe(0);
    }
    expect(summaries.map((s) => s.units?.['servingLines']?.done ?? 0).every((n) => n > 50)).toBe(true);
  });

  it('stores each line and stop-line pair of the source once', async () => {
    const r = await sql<{ lines: number; distinct_lines: number; pairs: number; distinct_pairs: number }>`
      SELECT (SELECT count(*)::int FROM efa.lines WHERE source = 'shared') AS lines,
             (SELECT count(DISTINCT line_key)::int FROM efa.lines WHERE source = 'shared') AS distinct_lines,
             (SELECT count(*)::int FROM efa.stop_lines WHERE source = 'shared') AS pairs,
             (SELECT count(DISTINCT (stop_id, line_key))::int FROM efa.stop_lines WHERE source = 'shared') AS distinct_pairs`.execute(t.db.kysely);
    const row = r.rows[0];
    expect(row?.lines).toBeGreaterThan(5);
    expect(row?.lines).toBe(row?.distinct_lines);
    expect(row?.pairs).toBe(row?.distinct_pairs);
  });
});

describe('two first runs on an empty database', () => {
  it('migrate it once between them, neither failing on the schema the other creates', async () => {
    const created = await createTestDbUrl({ migrated: false });
    const a = await openDb(created.url);
    // PGlite is one process per directory: there the second migration runs on the same handle.
    const b = dbKind() === 'postgres' ? await openDb(created.url) : a;
    try {
      const results = await Promise.all([migrate(a), migrate(b)]);
      const applied = results.flatMap((r) => r.applied);
      expect(new Set(applied).size).toBe(applied.length);
      expect(results[0].current).toBe(results[1].current);
    } finally {
      if (b !== a) await b.close();
      await a.close();
      await created.drop();
    }
  }, 120_000);
});
