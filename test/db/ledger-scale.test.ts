import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import { markGone } from '../../src/db/deletion.js';
import type { RunScope } from '../../src/relations/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * The deletion check's cost must grow with the rows, not with their square, whatever the planner
 * guesses about the seen sets (it cannot know an array's length). Measured as a ratio: the same
 * finalisation on four times the rows. Linear work takes about 4x; the nested loop that unnested
 * every seen set once per row took 16x (and, at 100,000 seen keys, minutes: this test then fails on
 * its timeout). No wall-clock limit: only the ratio.
 */

const REGION = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] };
const scope = (source: string): RunScope => ({
  source,
  region: JSON.stringify(REGION),
  regionMax: [10, 10],
  relations: {
    pins: { types: ['STOP'], any: false, inclMOT: null, exclMOT: null },
    lines: { forStops: true },
  } as RunScope['relations'],
});

describe('finalisation in linear time (100,000 seen keys)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  /**
   * A source with n stops and n lines, a first run that saw them all and a second that saw all but
   * 1 % in complete tiles (a 10 x 10 grid) and a complete ServingLines sweep: the deletion check of
   * the second run finds the 1 % (pins directly, lines through "seen before in the same scope").
   */
  async function world(source: string, n: number): Promise<OpenedRun> {
    const k = t.db.kysely;
    const one = await createRun(k, { jobName: source, jobHash: 'h', scope: scope(source), options: {} });
    const two = await createRun(k, { jobName: source, jobHash: 'h', scope: scope(source), options: {} });
    const side = Math.ceil(Math.sqrt(n));
    await sql`
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
      SELECT ${source}, 'STOP:' || i, 'STOP', i::text, 'stop ' || i,
             ST_SetSRID(ST_MakePoint(0.005 + (i % ${side}) * (9.99 / ${side}), 0.005 + (i / ${side}) * (9.99 / ${side})), 4326),
             'h', ${one.runId}::bigint, ${one.runId}::bigint
      FROM generate_series(0, ${n - 1}) AS i`.execute(k);
    await sql`
      INSERT INTO efa.lines (source, line_key, name, number, direction, content_hash, first_run, changed_run)
      SELECT ${source}, 'L' || i, 'line ' || i, i::text, 'there', 'h', ${one.runId}::bigint, ${one.runId}::bigint
      FROM generate_series(0, ${n - 1}) AS i`.execute(k);
    for (const [run, keep] of [[one, n], [two, n - Math.floor(n / 100)]] as const) {
      for (const [relation, prefix] of [['pins', 'STOP:'], ['lines', 'L']] as const) {
        await sql`
          INSERT INTO efa.run_seen_sets (run_id, source, relation, keys)
          SELECT ${run.runId}::bigint, ${source}, ${relation}, array_agg(${prefix} || i ORDER BY i)
          FROM generate_series(0, ${keep - 1}) AS i GROUP BY i / 500`.execute(k);
      }
      await sql`
        INSERT INTO efa.run_tiles (run_id, operation, tile_id, depth, bbox, status, attempts, hits, duration_ms)
        SELECT ${run.runId}::bigint, 'coordInfo', 't' || gx || '_' || gy, 0, ST_MakeEnvelope(gx, gy, gx + 1, gy + 1, 4326), 'done', 1, 0, 0
        FROM generate_series(0, 9) gx, generate_series(0, 9) gy`.execute(k);
      await sql`
        INSERT INTO efa.run_tiles (run_id, operation, tile_id, depth, status, attempts, hits, duration_ms)
        VALUES (${run.runId}::bigint, 'servingLines', 'all', 0, 'done', 1, 0, 0)`.execute(k);
    }
    await sql`ANALYZE efa.pins, efa.lines, efa.run_seen_sets, efa.run_tiles`.execute(k);
    return two;
  }

  async function finalise(run: OpenedRun): Promise<{ ms: number; marked: Record<string, number | undefined> }> {
    const started = performance.now();
    const out = await t.db.transaction((tx) => markGone(tx, run, ['pins', 'lines'], { maxGonePercent: 50, release: { kind: 'none' }, jobName: run.source }));
    return { ms: performance.now() - started, marked: out.marked };
  }

  it('marks the 1 % gone, and four times the rows cost well under sixteen times the time', async () => {
    const small = await world('small', 25_000);
    const large = await world('large', 100_000);
    // Warm caches and plans once, then take the better of two runs of each.
    const s1 = await finalise(small);
    expect(s1.marked).toEqual({ pins: 250, lines: 250 });
    const l1 = await finalise(large);
    expect(l1.marked).toEqual({ pins: 1_000, lines: 1_000 });
    // Marked rows are not candidates again: time the same work on fresh candidates.
    await sql`UPDATE efa.pins SET deleted_at = NULL WHERE deleted_at IS NOT NULL`.execute(t.db.kysely);
    await sql`UPDATE efa.lines SET deleted_at = NULL WHERE deleted_at IS NOT NULL`.execute(t.db.kysely);
    const s2 = await finalise(small);
    const l2 = await finalise(large);
    const ratio = Math.min(l1.ms, l2.ms) / Math.max(1, Math.min(s1.ms, s2.ms));
    console.log(`finalisation: 25,000 rows ${Math.round(Math.min(s1.ms, s2.ms))} ms, 100,000 rows ${Math.round(Math.min(l1.ms, l2.ms))} ms, ratio ${ratio.toFixed(2)}`);
    expect(ratio).toBeLessThan(8);
  }, 900_000);
});
