import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob, type RunSummary } from '../../../src/run/index.js';
import { createLogger } from '../../../src/util/log.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { gridStops, pinsBody, startHostileUpstream, type CoordBehaviour, type HostileUpstream } from '../../helpers/hostile-upstream.js';
import { inlineJob } from '../../helpers/job.js';

/**
 * Issue 22.5 (a): a vehicle snapshot whose answers are all empty (the upstream's vehicle feed is
 * down; it answers `{"pins": []}` everywhere) is a gap, as a failed tile is: failed, its tiles
 * recorded failed with the reason, and left out of the hourly views instead of being averaged in
 * as zero vehicles.
 */

const silent = createLogger({ level: 'error', format: 'json' });
const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const today = '2026-11-22';

/** Sharing vehicles where the grid has its points: id `<n>:op1:area1`, as a SharingRefId. */
const vehicles: CoordBehaviour = (_q, truthful) =>
  pinsBody(
    truthful.map((s, i) => ({
      type: 'SHARING',
      id: `${s.id.replace(/\D/g, '')}:op1:area1`,
      name: `Bike ${i}`,
      coord: { lat: s.lat, lon: s.lon },
      vehicleType: 'BIKE',
      available: true,
    })),
  );
const empty: CoordBehaviour = () => pinsBody([]);

describe('a vehicle snapshot whose answers are all empty', () => {
  let upstream: HostileUpstream;
  let t: TestDb;
  let first: RunSummary;
  let second: RunSummary;

  beforeAll(async () => {
    upstream = await startHostileUpstream(gridStops(40, REGION), vehicles);
    t = await openTestDb();
    const job = inlineJob({
      name: 'empty-vehicles',
      baseUrl: upstream.url,
      region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 200, concurrency: 2, retries: 0, timeoutMs: 5_000 },
      sweeps: { vehicles: { maxPerRequest: 100 } },
    });
    first = await runJob({ loaded: job, db: t.db, log: silent, today, takenAt: new Date('2026-11-22T09:00:00Z') });
    upstream.behave(empty);
    second = await runJob({ loaded: job, db: t.db, log: silent, today, takenAt: new Date('2026-11-22T09:05:00Z') });
  }, 240_000);

  afterAll(async () => {
    await t?.dispose();
    await upstream?.stop();
  });

  it('is failed, a gap with the reason on its tiles, not a complete snapshot of zero vehicles', async () => {
    expect(first.status).toBe('succeeded');
    expect(second.status).toBe('failed');
    expect(second.exitCode).toBe(1);
    expect(second.error).toMatch(/vehicles snapshot failed/);
    const snap = await sql<{ status: string; rows: number; tiles_failed: number }>`
      SELECT status, rows, tiles_failed FROM efa.snapshots WHERE run_id = ${second.runId}::bigint`.execute(t.db.kysely);
    expect(snap.rows[0]).toMatchObject({ status: 'failed', rows: 0 });
    expect(snap.rows[0]?.tiles_failed).toBeGreaterThan(0);
    const tiles = await sql<{ status: string; error: string | null }>`
      SELECT status, error FROM efa.snapshot_tiles WHERE run_id = ${second.runId}::bigint AND status <> 'split'`.execute(t.db.kysely);
    expect(tiles.rows.length).toBeGreaterThan(0);
    for (const tile of tiles.rows) {
      expect(tile.status).toBe('failed');
      expect(tile.error).toMatch(/no vehicle in any answer of the region/);
    }
  });

  it('is left out of the hourly views instead of averaged in as zeros', async () => {
    const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE run_id = ${first.runId}::bigint`.execute(t.db.kysely);
    expect(stored.rows[0]?.n).toBe(40);
    const r = await sql<{ snapshots: number; snapshots_incomplete: number; total: string }>`
      SELECT snapshots, snapshots_incomplete, sum(vehicles_avg)::text AS total FROM efa.vehicle_availability_hourly
      WHERE job_name = 'empty-vehicles' GROUP BY snapshots, snapshots_incomplete`.execute(t.db.kysely);
    expect(r.rows).toEqual([{ snapshots: 1, snapshots_incomplete: 1, total: '40.00' }]);
  });
});
