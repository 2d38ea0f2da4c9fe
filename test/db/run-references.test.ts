import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import { markGone } from '../../src/db/deletion.js';
import type { RunScope } from '../../src/relations/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * Since sql/017 a relation's first_run / changed_run are not foreign keys (a per-row check on every
 * load): efa.runs is append-only instead, and only a pin stored before a run can be gone in it.
 */

const REGION = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] };
const scope: RunScope = {
  source: 'shared',
  region: JSON.stringify(REGION),
  regionMax: [10, 10],
  relations: { pins: { types: ['STOP'], any: false, inclMOT: null, exclMOT: null } } as RunScope['relations'],
};

describe('runs and the rows that name them (sql/017)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  async function storePins(run: OpenedRun, from: number, to: number): Promise<void> {
    await sql`
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
      SELECT 'shared', 'STOP:' || i, 'STOP', i::text, 'stop ' || i, ST_SetSRID(ST_MakePoint(0.5 + i * 0.1, 5), 4326), 'h', ${run.runId}::bigint, ${run.runId}::bigint
      FROM generate_series(${from}::int, ${to}::int) AS i`.execute(t.db.kysely);
  }

  async function saw(run: OpenedRun, from: number, to: number): Promise<void> {
    await sql`
      INSERT INTO efa.run_seen_sets (run_id, source, relation, keys)
      SELECT ${run.runId}::bigint, 'shared', 'pins', array_agg('STOP:' || i ORDER BY i) FROM generate_series(${from}::int, ${to}::int) AS i`.execute(t.db.kysely);
    await sql`
      INSERT INTO efa.run_tiles (run_id, operation, tile_id, depth, bbox, status, attempts, hits, duration_ms)
      VALUES (${run.runId}::bigint, 'coordInfo', 'all', 0, ST_MakeEnvelope(0, 0, 10, 10, 4326), 'done', 1, 0, 0)`.execute(t.db.kysely);
  }

  it('a pin another job stored while a run was on is not gone in that run; one stored before it is', async () => {
    const k = t.db.kysely;
    const one = await createRun(k, { jobName: 'a', jobHash: 'h', scope, options: {} });
    await storePins(one, 1, 10);
    await saw(one, 1, 10);
    const two = await createRun(k, { jobName: 'a', jobHash: 'h', scope, options: {} });
    // Job b of the same source starts after two and stores STOP:11 before two ends.
    const other = await createRun(k, { jobName: 'b', jobHash: 'h', scope, options: {} });
    await storePins(other, 11, 11);
    await saw(other, 11, 11);
    await saw(two, 1, 9);
    const out = await t.db.transaction((tx) => markGone(tx, two, ['pins'], { maxGonePercent: 50, release: { kind: 'none' }, jobName: 'a' }));
    expect(out.marked).toEqual({ pins: 1 });
    const gone = await sql<{ pin_key: string }>`SELECT pin_key FROM efa.pins WHERE deleted_at IS NOT NULL ORDER BY pin_key`.execute(k);
    expect(gone.rows.map((r) => r.pin_key)).toEqual(['STOP:10']);
  });

  it('efa.runs is append-only: DELETE and TRUNCATE are refused with what to do instead', async () => {
    const k = t.db.kysely;
    const run = await createRun(k, { jobName: 'c', jobHash: 'h', scope, options: {} });
    await expect(sql`DELETE FROM efa.runs WHERE run_id = ${run.runId}::bigint`.execute(k)).rejects.toThrow(/efa\.runs is append-only/);
    await expect(sql`TRUNCATE efa.runs CASCADE`.execute(k)).rejects.toThrow(/efa\.runs is append-only/);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.runs WHERE run_id = ${run.runId}::bigint`.execute(k);
    expect(left.rows[0]?.n).toBe(1);
  });
});
