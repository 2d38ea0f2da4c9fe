import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import type { TestDb } from '../helpers/db.js';
import { harvestedDb, type HarvestedDb } from '../helpers/harvested.js';

// A region inside the world (not all of it), so pins outside the region must stay out.
const region = [9.1, 48.72, 9.26, 48.82] as const;
const maxPerRequest = 60;

describe('end to end: one run against the simulator', () => {
  let harvested: HarvestedDb;
  let sim: Simulator;
  let t: TestDb;
  let summary: RunSummary;
  beforeAll(async () => {
    harvested = await harvestedDb({
      seed: 7, size: 2500, name: 'e2e', region, types: ['STOP', 'POI_POINT'], maxPerRequest,
      rateLimit: { requestsPerSecond: 200, concurrency: 6 },
    });
    ({ sim, t } = harvested);
    summary = harvested.run!;
  });
  afterAll(async () => {
    await harvested?.dispose();
  });

  it('succeeds and records the run', async () => {
    expect(summary.status).toBe('succeeded');
    expect(summary.exitCode).toBe(0);
    const run = await t.db.kysely.selectFrom('efa.runs').selectAll().where('run_id', '=', summary.runId).executeTakeFirstOrThrow();
    expect(run.status).toBe('succeeded');
    expect(run.requests).toBe(sim.requestLog.length);
    expect(run.finished_at).not.toBeNull();
  });

  it('holds exactly the simulator world inside the region, relation by relation', async () => {
    const truth = truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: '2026-11-22' }));
    const stored = await dbComparable(t.db);
    expect(truth.pins.length).toBeGreaterThan(maxPerRequest * 5);
    expect(stored.pins).toEqual(truth.pins);
    expect(stored.stops).toEqual(truth.stops);
    expect(stored.lines).toEqual(truth.lines);
    expect(stored.stopLines).toEqual(truth.stopLines);
    expect(stored.notices).toEqual(truth.notices);
    expect(stored.areas).toEqual(truth.areas);
  });

  it('stores every geometry valid, in lon/lat order, and every object once', async () => {
    const r = await sql<{ invalid: number; swapped: number; dup_ids: number }>`
      SELECT (SELECT count(*) FROM efa.operating_areas WHERE NOT ST_IsValid(geom))::int
           + (SELECT count(*) FROM efa.pins WHERE NOT ST_IsValid(geom))::int AS invalid,
             -- The world lies around lon 9, lat 48: a swapped point would have x near 48.
             (SELECT count(*) FROM efa.pins WHERE ST_X(geom) NOT BETWEEN 9 AND 9.4 OR ST_Y(geom) NOT BETWEEN 48.6 AND 48.9)::int AS swapped,
             (SELECT count(*) - count(DISTINCT id) FROM efa.pins WHERE id IS NOT NULL)::int AS dup_ids`.execute(t.db.kysely);
    expect(r.rows[0]).toEqual({ invalid: 0, swapped: 0, dup_ids: 0 });
    const srid = await sql<{ s: number }>`SELECT DISTINCT ST_SRID(geom) AS s FROM efa.operating_areas`.execute(t.db.kysely);
    expect(srid.rows).toEqual([{ s: 4326 }]);
  });

  it('splits capped tiles and stays within 2.5x the request floor', async () => {
    const coord = summary.coord;
    expect(coord).toBeDefined();
    const tiles = await sql<{ status: string; n: number }>`
      SELECT status, count(*)::int AS n FROM efa.run_tiles WHERE operation = 'coordInfo' GROUP BY status ORDER BY status`.execute(t.db.kysely);
    const byStatus = Object.fromEntries(tiles.rows.map((r) => [r.status, r.n]));
    expect(byStatus['split']).toBeGreaterThan(0);
    expect(byStatus['failed']).toBeUndefined();
    console.log(`coordInfo requests ${coord?.requests} for ${coord?.pins} pins, floor ${coord?.floor}: ${coord?.ratio}x`);
    expect(coord!.requests).toBeLessThanOrEqual(Math.ceil(2.5 * coord!.floor));
  });
});
