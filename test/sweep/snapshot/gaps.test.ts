import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { runJob, type RunSummary } from '../../../src/run/index.js';
import { createLogger } from '../../../src/util/log.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { inlineJob } from '../../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const region = [9.12, 48.74, 9.22, 48.8] as const;
const today = '2026-11-22';
/** A point whose CoordInfo requests fail forever in the faulty simulator. */
const hole = { lon: 9.2, lat: 48.79 };

const vehiclesJob = (baseUrl: string) =>
  inlineJob({
    name: 'gaps',
    baseUrl,
    region: { bbox: [...region] },
    rateLimit: { requestsPerSecond: 200, concurrency: 4, retries: 1, timeoutMs: 5_000 },
    sweeps: { vehicles: { maxPerRequest: 60 } },
  });

describe('a snapshot with a tile that fails', () => {
  let good: Simulator;
  let faulty: Simulator;
  let t: TestDb;
  let first: RunSummary;
  let second: RunSummary;
  beforeAll(async () => {
    // One fixed clock for both: the second snapshot's world is the first's, but for the hole.
    const clock = '2026-11-22T09:00:00Z';
    good = await startSimulator({ port: 0, seed: 3, size: 1200, today, clock });
    faulty = await startSimulator({ port: 0, seed: 3, size: 1200, today, clock, faults: `failbox=${hole.lon}:${hole.lat}` });
    t = await openTestDb();
    first = await runJob({ loaded: vehiclesJob(good.url), db: t.db, log: silent, today, takenAt: new Date('2026-11-22T09:00:00Z') });
    second = await runJob({ loaded: vehiclesJob(faulty.url), db: t.db, log: silent, today, takenAt: new Date('2026-11-22T09:05:00Z') });
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await good?.stop();
    await faulty?.stop();
  });

  it('is partial (exit 3) and marked so', async () => {
    expect(first.status).toBe('succeeded');
    expect(second.status).toBe('partial');
    expect(second.exitCode).toBe(3);
    const r = await sql<{ status: string; tiles_failed: number }>`SELECT status, tiles_failed FROM efa.snapshots WHERE run_id = ${second.runId}::bigint`.execute(t.db.kysely);
    expect(r.rows[0]?.status).toBe('partial');
    expect(r.rows[0]?.tiles_failed).toBeGreaterThan(0);
  });

  it('records the failed tile over the hole as a gap, and stores the rest', async () => {
    const tiles = await sql<{ status: string; covers: boolean; stored: number }>`
      SELECT status, ST_Intersects(bbox, ST_Point(${hole.lon}, ${hole.lat}, 4326)) AS covers, stored FROM efa.snapshot_tiles
      WHERE run_id = ${second.runId}::bigint AND status <> 'split'`.execute(t.db.kysely);
    const failed = tiles.rows.filter((x) => x.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((x) => x.covers && x.stored === 0)).toBe(true);
    // Every vehicle of the world outside the failed tiles is there; none inside them.
    const outside = await sql<{ missing: number; extra: number }>`
      WITH gap AS (SELECT ST_Union(bbox) AS g FROM efa.snapshot_tiles WHERE run_id = ${second.runId}::bigint AND status = 'failed'),
           before AS (SELECT vehicle_key, geom FROM efa.vehicle_snapshots WHERE run_id = ${first.runId}::bigint),
           now AS (SELECT vehicle_key, geom FROM efa.vehicle_snapshots WHERE run_id = ${second.runId}::bigint)
      SELECT (SELECT count(*)::int FROM before, gap WHERE NOT ST_Intersects(before.geom, gap.g) AND vehicle_key NOT IN (SELECT vehicle_key FROM now)) AS missing,
             (SELECT count(*)::int FROM now, gap WHERE ST_Intersects(now.geom, gap.g)) AS extra`.execute(t.db.kysely);
    expect(outside.rows[0]).toEqual({ missing: 0, extra: 0 });
  });

  it('is left out of the hourly views, not read as fewer vehicles', async () => {
    const r = await sql<{ snapshots: number; snapshots_incomplete: number; total: string }>`
      SELECT snapshots, snapshots_incomplete, sum(vehicles_avg)::text AS total FROM efa.vehicle_availability_hourly
      WHERE job_name = 'gaps' GROUP BY snapshots, snapshots_incomplete`.execute(t.db.kysely);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]?.snapshots).toBe(1);
    expect(r.rows[0]?.snapshots_incomplete).toBe(1);
    const firstRows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE run_id = ${first.runId}::bigint`.execute(t.db.kysely);
    expect(Number(r.rows[0]?.total)).toBe(firstRows.rows[0]?.n);
  });
});

describe('a nightly CoordInfo sweep of every object type', () => {
  let sim: Simulator;
  let t: TestDb;
  let summary: RunSummary;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1200, today });
    t = await openTestDb();
    const loaded = inlineJob({
      name: 'night',
      baseUrl: sim.url,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 200, concurrency: 4 },
      sweeps: { coord: { types: ['ANY'], maxPerRequest: 400 } },
    });
    summary = await runJob({ loaded, db: t.db, log: silent, today });
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('stores no sharing vehicle as a pin, and counts those it left out', async () => {
    expect(summary.status).toBe('succeeded');
    const vehicles = [...sim.world.pinsInBox([...region], new Set(['SHARING'] as const))].length;
    expect(vehicles).toBeGreaterThan(50);
    const pins = await sql<{ sharing: number; all: number }>`
      SELECT count(*) FILTER (WHERE type = 'SHARING')::int AS sharing, count(*)::int AS all FROM efa.pins`.execute(t.db.kysely);
    expect(pins.rows[0]?.sharing).toBe(0);
    expect(pins.rows[0]?.all).toBeGreaterThan(0);
    const meta = await sql<{ n: number }>`SELECT (meta ->> 'vehiclesNotStored')::int AS n FROM efa.runs WHERE run_id = ${summary.runId}::bigint`.execute(t.db.kysely);
    expect(meta.rows[0]?.n).toBe(vehicles);
  });
});
