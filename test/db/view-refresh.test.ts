import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { refreshAnalystViews } from '../../src/db/views.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * The materialized views are refreshed only when something they read may have changed
 * (sql/015_view_refresh_marks.sql): an unchanged night at 1,000,000 pins spent most of its
 * finalisation recomputing efa.stop_summary into the same rows.
 */
describe('analyst view refresh', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  const addChangeSet = async () => {
    const run = await sql<{ run_id: string }>`
      INSERT INTO efa.runs (job_name, job_hash, source, status, started_at)
      VALUES ('views', 'h', 'views', 'succeeded', now()) RETURNING run_id::text`.execute(t.db.kysely);
    const runId = run.rows[0]?.run_id ?? '';
    await sql`INSERT INTO efa.change_sets (run_id, source, relation, op, keys) VALUES (${runId}::bigint, 'views', 'pins', 'insert', ARRAY['STOP:1'])`.execute(t.db.kysely);
  };

  it('refreshes every view the first time, then skips stop_summary while nothing changed', async () => {
    expect(await refreshAnalystViews(t.db, { runChanged: false })).toEqual(['efa.stop_summary', 'efa.tile_coverage']);
    // The latest run's tiles are not change sets: tile_coverage is refreshed every time.
    expect(await refreshAnalystViews(t.db, { runChanged: false })).toEqual(['efa.tile_coverage']);
  });

  it('refreshes stop_summary after a change set of any job, or when the refreshing run changed rows', async () => {
    await addChangeSet();
    expect(await refreshAnalystViews(t.db, { runChanged: false })).toContain('efa.stop_summary');
    expect(await refreshAnalystViews(t.db, { runChanged: false })).not.toContain('efa.stop_summary');
    expect(await refreshAnalystViews(t.db, { runChanged: true })).toContain('efa.stop_summary');
  });

  it('refreshes stop_summary on another date (its active notices follow current_date)', async () => {
    await sql`UPDATE efa_private.view_refreshes SET refreshed_on = refreshed_on - 1`.execute(t.db.kysely);
    expect(await refreshAnalystViews(t.db, { runChanged: false })).toContain('efa.stop_summary');
  });

  it('refreshes a view emptied by hand (not populated)', async () => {
    await sql`REFRESH MATERIALIZED VIEW efa.stop_summary WITH NO DATA`.execute(t.db.kysely);
    expect(await refreshAnalystViews(t.db, { runChanged: false })).toContain('efa.stop_summary');
    const r = await sql<{ populated: boolean }>`SELECT relispopulated AS populated FROM pg_class WHERE oid = 'efa.stop_summary'::regclass`.execute(t.db.kysely);
    expect(r.rows[0]?.populated).toBe(true);
  });
});
