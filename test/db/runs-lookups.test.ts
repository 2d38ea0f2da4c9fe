import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { findUnfinishedRun, nightNumber } from '../../src/db/runs.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * A five-minute snapshot job writes ~105,000 runs a year: the run to resume and the night number are
 * read before every run's first request, so they must come from an index, not a scan of efa.runs.
 */
describe('efa.runs lookups at a year of five-minute runs', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    await sql`
      INSERT INTO efa.runs (job_name, job_hash, source, status, started_at, finished_at)
      SELECT CASE WHEN i % 4 = 0 THEN 'other' ELSE 'vehicles' END, 'h', 'demo', 'succeeded',
             now() - make_interval(mins => 5 * (110000 - i)), now() - make_interval(mins => 5 * (110000 - i))
      FROM generate_series(1, 110000) AS i`.execute(t.db.kysely);
    await sql`INSERT INTO efa.runs (job_name, job_hash, source) VALUES ('vehicles', 'h', 'demo')`.execute(t.db.kysely);
    await sql`ANALYZE efa.runs`.execute(t.db.kysely);
  }, 240_000);
  afterAll(async () => t.dispose());

  it('finds the unfinished run and counts the nights through indexes', async () => {
    const unfinished = await findUnfinishedRun(t.db.kysely, 'vehicles');
    expect(unfinished?.runId).toBe('110001');
    expect(await nightNumber(t.db.kysely, 'vehicles', '110001')).toBe(82500);
    const plan = async (query: string): Promise<string> =>
      (await sql<{ 'QUERY PLAN': string }>`${sql.raw(`EXPLAIN ${query}`)}`.execute(t.db.kysely)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const resume = await plan(`SELECT run_id FROM efa.runs WHERE job_name = 'vehicles' AND status = 'running' ORDER BY run_id DESC LIMIT 1`);
    expect(resume).toContain('runs_unfinished_idx');
    expect(resume).not.toMatch(/Seq Scan on runs/);
  });
});
