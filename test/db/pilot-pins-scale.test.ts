import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import { runPinPoints } from '../../src/db/plan-reads.js';
import type { RunScope } from '../../src/relations/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * A resumed pilot night reads the pilot's pins back (runPinPoints) in the middle of a first load, when
 * efa.pins still carries the statistics of an empty table. Its cost must grow with the keys, not with
 * their square: a join let the planner loop over every pilot pin per seen key (15 s for one page of
 * 200,000 keys in the scale bench). As a ratio of four times the pins, never a wall-clock limit.
 */
const scope = (source: string): RunScope => ({
  source,
  region: JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] }),
  regionMax: [10, 10],
  relations: { pins: { types: ['STOP', 'POI_POINT'], any: false, inclMOT: null, exclMOT: null } } as RunScope['relations'],
});

describe('the pilot pins of a run, read back in linear time on stale statistics', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    // Statistics of an empty table, as a first night has them until its end.
    await sql`ANALYZE efa.pins, efa.run_seen_sets`.execute(t.db.kysely);
  });
  afterAll(async () => t?.dispose());

  async function world(source: string, n: number): Promise<OpenedRun> {
    const k = t.db.kysely;
    const run = await createRun(k, { jobName: source, jobHash: 'h', scope: scope(source), options: {} });
    await sql`
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
      SELECT ${source}, CASE WHEN i % 4 = 0 THEN 'STOP:' ELSE 'POI_POINT:' END || i, CASE WHEN i % 4 = 0 THEN 'STOP' ELSE 'POI_POINT' END,
             i::text, 'pin ' || i, ST_SetSRID(ST_MakePoint(0.001 + (i % 1000) * 0.009, 0.001 + (i / 1000) * 0.009), 4326), 'h', ${run.runId}::bigint, ${run.runId}::bigint
      FROM generate_series(0, ${n - 1}) AS i`.execute(k);
    await sql`
      INSERT INTO efa.run_seen_sets (run_id, source, relation, keys)
      SELECT ${run.runId}::bigint, ${source}, 'pins', array_agg(CASE WHEN i % 4 = 0 THEN 'STOP:' ELSE 'POI_POINT:' END || i ORDER BY i)
      FROM generate_series(0, ${n - 1}) AS i GROUP BY i / 1000`.execute(k);
    return run;
  }

  async function timed(run: OpenedRun): Promise<{ ms: number; pins: number }> {
    const started = performance.now();
    const pins = await runPinPoints(t.db.kysely, run, 'STOP');
    return { ms: performance.now() - started, pins: pins.length / 2 };
  }

  it('returns every STOP of the run, and four times the pins cost well under sixteen times the time', async () => {
    const small = await world('small', 10_000);
    const large = await world('large', 40_000);
    // Best of five, alternating: a small read takes tens of milliseconds, and one pause of a loaded
    // machine in it would read as a steeper curve.
    const best = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
    for (let round = 0; round < 5; round++) {
      const [s, l] = [await timed(small), await timed(large)];
      expect(s.pins).toBe(2_500);
      expect(l.pins).toBe(10_000);
      best.small = Math.min(best.small, s.ms);
      best.large = Math.min(best.large, l.ms);
    }
    const ratio = best.large / Math.max(1, best.small);
    console.log(`runPinPoints: 10,000 pins ${Math.round(best.small)} ms, 40,000 pins ${Math.round(best.large)} ms, ratio ${ratio.toFixed(2)}`);
    expect(ratio).toBeLessThan(8);
  }, 600_000);
});
