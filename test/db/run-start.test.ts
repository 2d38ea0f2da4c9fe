import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, stampRunEnd } from '../../src/db/runs.js';
import type { RunScope } from '../../src/relations/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * A run's duration counts what the user waited for before the run's row existed (the CLI's start,
 * opening the database, migrations): the row's started_at is set back by it, on the database's clock.
 */
describe("a run's start", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  }, 240_000);
  afterAll(async () => t?.dispose());

  const scope: RunScope = { source: 'demo', region: '{}', regionMax: [9, 48], relations: {} };
  const behindNow = async (runId: string): Promise<number> =>
    (await sql<{ s: number }>`SELECT extract(epoch FROM clock_timestamp() - started_at)::float8 AS s FROM efa.runs WHERE run_id = ${runId}::bigint`.execute(t.db.kysely)).rows[0]?.s ?? Number.NaN;

  it('goes back by the seconds waited before the run opened, and durationS includes them', async () => {
    const run = await createRun(t.db.kysely, { jobName: 'waited', jobHash: 'h', scope, options: {}, startedSecondsAgo: 7.5 });
    const behind = await behindNow(run.runId);
    expect(behind).toBeGreaterThanOrEqual(7.5);
    expect(behind).toBeLessThan(7.5 + 30);
    const stamped = await stampRunEnd(t.db.kysely, run, new Date());
    expect(stamped?.durationS).toBeGreaterThanOrEqual(7.5);
  });

  it('is the moment the row is written when nothing was waited for', async () => {
    const run = await createRun(t.db.kysely, { jobName: 'direct', jobHash: 'h', scope, options: {} });
    expect(await behindNow(run.runId)).toBeLessThan(30);
    const stamped = await stampRunEnd(t.db.kysely, run, new Date());
    expect(stamped?.durationS).toBeLessThan(7.5);
  });
});
