import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../src/db/runs.js';
import { readDefinitionFiles } from '../../src/db/definitions.js';
import { migrate, sqlDir } from '../../src/db/migrate.js';
import { dropSnapshotPartitions, ensureSnapshotPartitions, writeParkingSnapshot, writeVehicleSnapshot, type ParkingRow, type SnapshotStatus, type VehicleRow } from '../../src/db/snapshots.js';
import pg from 'pg';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';

/**
 * The dashboard views read hourly roll-ups kept by each snapshot (sql/028) instead of aggregating the
 * whole series. Their answers must be those of the former definitions (sql/009 and 011, repeated here
 * as the reference), whether the snapshots were rolled up as written or by the upgrade's backfill.
 */

// The former view bodies, verbatim in what they compute (sql/009_snapshot_views.sql, sql/019_snapshot_keys.sql).
const formerHours = `SELECT source, job_name, kind, date_trunc('hour', taken_at) AS hour,
    count(*) FILTER (WHERE status = 'complete')::int AS snapshots, count(*) FILTER (WHERE status <> 'complete')::int AS snapshots_incomplete
  FROM efa.snapshots GROUP BY source, job_name, kind, date_trunc('hour', taken_at)`;
const reference: Record<string, string> = {
  vehicle_availability_hourly: `WITH h AS (${formerHours}), per_snapshot AS (
      SELECT s.source, s.job_name, s.taken_at, v.provider_id, v.kind, count(*)::int AS vehicles,
             count(*) FILTER (WHERE v.available IS NOT FALSE)::int AS available
      FROM efa.vehicle_snapshots v JOIN efa.snapshots s ON s.run_id = v.run_id AND s.kind = 'vehicles' AND s.status = 'complete'
      GROUP BY s.source, s.job_name, s.taken_at, v.provider_id, v.kind)
    SELECT p.source, p.job_name, h.hour, p.provider_id, p.kind, h.snapshots, h.snapshots_incomplete,
           round(sum(p.vehicles)::numeric / h.snapshots, 2) AS vehicles_avg, round(sum(p.available)::numeric / h.snapshots, 2) AS available_avg,
           CASE WHEN count(*) < h.snapshots THEN 0 ELSE min(p.available) END AS available_min, max(p.available) AS available_max
    FROM per_snapshot p JOIN h ON h.source = p.source AND h.job_name = p.job_name AND h.kind = 'vehicles' AND h.hour = date_trunc('hour', p.taken_at)
    GROUP BY p.source, p.job_name, h.hour, p.provider_id, p.kind, h.snapshots, h.snapshots_incomplete`,
  vehicle_hex_hourly: `WITH h AS (${formerHours}), cells AS (
      SELECT s.source, s.job_name, date_trunc('hour', s.taken_at) AS hour, v.kind, c.i, c.j, c.geom, count(*)::int AS vehicles,
             count(*) FILTER (WHERE v.available IS NOT FALSE)::int AS available
      FROM efa.vehicle_snapshots v JOIN efa.snapshots s ON s.run_id = v.run_id AND s.kind = 'vehicles' AND s.status = 'complete'
      CROSS JOIN LATERAL (SELECT g.i, g.j, g.geom FROM ST_HexagonGrid(250, ST_Transform(v.geom, 3857)) g
                          WHERE ST_Intersects(g.geom, ST_Transform(v.geom, 3857)) ORDER BY g.i, g.j LIMIT 1) c
      GROUP BY s.source, s.job_name, date_trunc('hour', s.taken_at), v.kind, c.i, c.j, c.geom)
    SELECT c.source, c.job_name, c.hour, c.kind, c.i AS cell_i, c.j AS cell_j, h.snapshots, h.snapshots_incomplete,
           round(c.vehicles::numeric / h.snapshots, 2) AS vehicles_avg, round(c.available::numeric / h.snapshots, 2) AS available_avg,
           ST_AsText(ST_SnapToGrid(ST_Transform(c.geom, 4326), 1e-9)) AS geom
    FROM cells c JOIN h ON h.source = c.source AND h.job_name = c.job_name AND h.kind = 'vehicles' AND h.hour = c.hour`,
  latest_vehicles: `WITH latest AS (
      SELECT DISTINCT ON (source, job_name) source, job_name, run_id, taken_at FROM efa.snapshots
      WHERE kind = 'vehicles' AND status <> 'failed' ORDER BY source, job_name, taken_at DESC)
    SELECT DISTINCT ON (v.source, v.provider_id, v.vehicle_key) v.fid, v.source, v.vehicle_key, v.provider_id, v.kind,
           v.available, v.taken_at AS seen_at, v.run_id, EXISTS (SELECT 1 FROM latest l WHERE l.run_id = v.run_id) AS in_latest_snapshot,
           ST_X(v.geom) AS lon, ST_Y(v.geom) AS lat
    FROM efa.vehicle_snapshots v ORDER BY v.source, v.provider_id, v.vehicle_key, v.taken_at DESC`,
  parking_occupancy_hourly: `WITH h AS (${formerHours})
    SELECT s.source, s.job_name, h.hour, p.parking_key, (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name, max(p.capacity_ok) AS capacity,
           h.snapshots, h.snapshots_incomplete,
           count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
           round(avg(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
           min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_min, max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
           round(avg(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 4) AS occupancy_avg,
           count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
           round(avg(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg,
           count(p.free_ok) FILTER (WHERE p.data_source = 'UNKNOWN')::int AS unknown_readings,
           count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)::int AS readings_impossible
    FROM (SELECT x.*, CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
             CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
      FROM efa.parking_snapshots x) p
    JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
    JOIN h ON h.source = s.source AND h.job_name = s.job_name AND h.kind = 'parking' AND h.hour = date_trunc('hour', p.taken_at)
    GROUP BY s.source, s.job_name, h.hour, p.parking_key, h.snapshots, h.snapshots_incomplete`,
  parking_occupancy_weekday_hour: `SELECT s.source, s.job_name, p.parking_key, extract(isodow FROM p.taken_at)::int AS weekday,
           extract(hour FROM p.taken_at)::int AS hour_of_day, (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name, max(p.capacity_ok) AS capacity,
           (count(DISTINCT p.taken_at::date) FILTER (WHERE p.data_source = 'REALTIME' AND p.free_ok IS NOT NULL))::int AS days,
           count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
           round(avg(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
           min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_min, max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
           round(avg(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 4) AS occupancy_avg,
           count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
           round(avg(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg,
           count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)::int AS readings_impossible
    FROM (SELECT x.*, CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
             CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
      FROM efa.parking_snapshots x) p
    JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
    GROUP BY s.source, s.job_name, p.parking_key, extract(isodow FROM p.taken_at), extract(hour FROM p.taken_at)`,
};
// What each view is compared on (the hexagon's geometry as text, snapped: two transforms of one polygon).
const viewColumns: Record<string, string> = {
  vehicle_availability_hourly: '*',
  vehicle_hex_hourly: 'source, job_name, hour, kind, cell_i, cell_j, snapshots, snapshots_incomplete, vehicles_avg, available_avg, ST_AsText(ST_SnapToGrid(geom, 1e-9)) AS geom',
  latest_vehicles: 'fid, source, vehicle_key, provider_id, kind, available, seen_at, run_id, in_latest_snapshot, lon, lat',
  parking_occupancy_hourly: '*',
  parking_occupancy_weekday_hour: '*',
};

const rows = async (t: TestDb, query: string): Promise<string[]> =>
  (await sql<Record<string, unknown>>`${sql.raw(query)}`.execute(t.db.kysely)).rows.map((r) => JSON.stringify(r)).sort();

async function expectViewsEqualFormer(t: TestDb): Promise<void> {
  for (const [view, query] of Object.entries(reference)) {
    const now = await rows(t, `SELECT ${viewColumns[view]} FROM efa.${view}`);
    expect(now.length, view).toBeGreaterThan(0);
    expect(now, view).toEqual(await rows(t, query));
  }
}

// Deterministic vehicles: three providers numbering their vehicles alike, a provider and kind left out, some unavailable.
function vehicles(seed: number, n: number): VehicleRow[] {
  return Array.from({ length: n }, (_, i) => {
    const k = (i * 7 + seed * 13) % 97;
    return {
      vehicleKey: `V${i % 40}`, providerId: i % 11 === 0 ? null : `p${1 + (i % 3)}`, areaId: null, kind: i % 13 === 0 ? null : i % 2 ? 'BIKE' : 'CAR',
      engine: null, locationType: null, chargePercent: null, fuelPercent: null, available: k % 5 === 0 ? false : k % 7 === 0 ? null : true,
      detailed: false, stationId: null, stationSlots: null, model: null, rangeKm: null,
      lon: 9.1 + ((k * 37) % 1000) / 10_000, lat: 48.7 + ((k * 53) % 1000) / 10_000,
    };
  }).filter((v, i, all) => all.findIndex((w) => w.vehicleKey === v.vehicleKey && w.providerId === v.providerId) === i);
}

function parking(seed: number): ParkingRow[] {
  return Array.from({ length: 6 }, (_, i) => ({
    parkingKey: `P${i}`, name: `Park ${i} v${seed % 2}`, kind: 1, capacity: i === 5 ? null : 100 + i, free: i === 4 ? null : (seed * 17 + i * 5) % 90,
    occupied: null, dataSource: i === 2 ? 'PROFILE' : i === 3 ? 'UNKNOWN' : 'REALTIME', measuredAt: null,
    occ: null, occLos: null, occLevel: null, occTrend: null, lon: 9.1 + i / 100, lat: 48.7,
  }));
}

// Three hours over two UTC days, complete and partial snapshots, vehicles and parking.
const instants = ['2026-03-01T22:05:00Z', '2026-03-01T22:35:00Z', '2026-03-01T23:10:00Z', '2026-03-01T23:40:00Z', '2026-03-02T00:20:00Z'];
const statusAt = (i: number): SnapshotStatus => (i === 1 ? 'partial' : 'complete');

async function store(t: TestDb): Promise<void> {
  for (const [i, at] of instants.entries()) {
    const takenAt = new Date(at);
    await ensureSnapshotPartitions(t.db, takenAt);
    for (const kind of ['vehicles', 'parking'] as const) {
      const run = await createRun(t.db.kysely, { jobName: kind, jobHash: 'h', scope: { source: 'src' } as never, options: {} });
      const ref = { runId: run.runId, source: 'src', jobName: kind, takenAt };
      const record = { kind, status: statusAt(i), tiles: 1, tilesFailed: statusAt(i) === 'complete' ? 0 : 1, tilesCapped: 0, objects: 0, requests: 1, detailRequests: 0 };
      await t.db.transaction((tx) =>
        kind === 'vehicles'
          ? writeVehicleSnapshot(tx, ref, { record, tiles: [], rows: vehicles(i, 60) })
          : writeParkingSnapshot(tx, ref, { record, tiles: [], rows: parking(i) }),
      );
    }
  }
}

describe('snapshot views over hourly roll-ups', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    await sql`SET TimeZone = 'UTC'`.execute(t.db.kysely);
    await store(t);
  }, 180_000);
  afterAll(async () => t?.dispose());

  it('answer what the former whole-series views answered', async () => {
    await expectViewsEqualFormer(t);
  });

  it('roll a snapshot up once: a second call changes nothing', async () => {
    const before = await rows(t, 'SELECT * FROM efa.vehicle_availability_hourly');
    const runs = await sql<{ run_id: string; kind: string }>`SELECT run_id::text AS run_id, kind FROM efa.snapshots`.execute(t.db.kysely);
    for (const r of runs.rows) await sql`SELECT efa.rollup_snapshot(${r.run_id}::bigint, ${r.kind})`.execute(t.db.kysely);
    expect(await rows(t, 'SELECT * FROM efa.vehicle_availability_hourly')).toEqual(before);
  });

  it('never average a measured figure outside [0, capacity]', async () => {
    const takenAt = new Date('2026-03-02T00:50:00Z');
    const run = await createRun(t.db.kysely, { jobName: 'parking', jobHash: 'h', scope: { source: 'src' } as never, options: {} });
    const record = { kind: 'parking' as const, status: 'complete' as const, tiles: 1, tilesFailed: 0, tilesCapped: 0, objects: 0, requests: 1, detailRequests: 0 };
    const bad = parking(9).map((p, i) => (i === 0 ? { ...p, free: -7 } : i === 1 ? { ...p, free: 1_000_000_000 } : p));
    await t.db.transaction((tx) => writeParkingSnapshot(tx, { runId: run.runId, source: 'src', jobName: 'parking', takenAt }, { record, tiles: [], rows: bad }));
    const r = await sql<{ parking_key: string; free_min: number | null; free_max: number | null; occupancy_avg: string | null }>`
      SELECT parking_key, free_min, free_max, occupancy_avg::text FROM efa.parking_occupancy_hourly
      WHERE hour = '2026-03-02T00:00:00Z' AND parking_key IN ('P0', 'P1') ORDER BY parking_key`.execute(t.db.kysely);
    for (const row of r.rows) {
      expect(row.free_min).toBeGreaterThanOrEqual(0);
      expect(row.free_max).toBeLessThanOrEqual(101);
      expect(Number(row.occupancy_avg)).toBeGreaterThanOrEqual(0);
      expect(Number(row.occupancy_avg)).toBeLessThanOrEqual(1);
    }
  });

  it('read no partition of the series for a question about the last day', async () => {
    for (const view of ['vehicle_availability_hourly', 'vehicle_hex_hourly', 'parking_occupancy_hourly', 'latest_vehicles']) {
      const plan = await sql<{ 'QUERY PLAN': string }>`${sql.raw(`EXPLAIN SELECT * FROM efa.${view}`)}`.execute(t.db.kysely);
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text, view).not.toMatch(/vehicle_snapshots|parking_snapshots/);
    }
  });
});

describe.runIf(dbKind() === 'postgres')('retention beside a long reader', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    await store(t);
  }, 180_000);
  afterAll(async () => t?.dispose());

  it('leaves the old days to the next snapshot instead of queueing every query behind its DROP', async () => {
    const reader = new pg.Client({ connectionString: t.url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM efa.vehicle_snapshots');
      // The reader holds its lock: the drop gives up after its lock timeout and drops nothing.
      expect(await dropSnapshotPartitions(t.db, new Date('2026-03-02T00:00:00Z'))).toBeUndefined();
      const counted = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots`.execute(t.db.kysely);
      expect(counted.rows[0]?.n).toBeGreaterThan(0);
      await reader.query('COMMIT');
      expect(await dropSnapshotPartitions(t.db, new Date('2026-03-02T00:00:00Z'))).toEqual(['parking_snapshots_20260301', 'snapshot_tiles_20260301', 'vehicle_snapshots_20260301']);
      // The latest positions that only the dropped days held go with them.
      const stale = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_latest WHERE taken_at < '2026-03-02'`.execute(t.db.kysely);
      expect(stale.rows[0]?.n).toBe(0);
    } finally {
      await reader.end();
    }
  });
});

describe('upgrading a warehouse that holds snapshots', () => {
  let t: TestDb;
  let before: string;
  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
    // The schema before the roll-ups (version 27), with snapshots written as that version wrote them.
    before = await mkdtemp(join(tmpdir(), 'efa-sync-sql-'));
    for (const f of await readdir(sqlDir)) if (/^0([01]\d|2[0-7])_/.test(f)) await cp(join(sqlDir, f), join(before, f));
    await migrate(t.db, before);
    // Its partition functions: definitions now, applied after the numbered migrations (this folder has none).
    for (const d of await readDefinitionFiles()) if (['efa.snapshot_tables', 'efa.ensure_snapshot_partitions'].includes(d.name)) await t.db.exec(d.sql);
    await sql`SET TimeZone = 'UTC'`.execute(t.db.kysely);
    await sql`CREATE FUNCTION efa.rollup_snapshot(bigint, text) RETURNS void LANGUAGE sql AS 'SELECT'`.execute(t.db.kysely);
    await store(t);
    await sql`DROP FUNCTION efa.rollup_snapshot(bigint, text)`.execute(t.db.kysely);
  }, 180_000);
  afterAll(async () => {
    await t?.dispose();
    await rm(before, { recursive: true, force: true });
  });

  it('rolls the stored snapshots up, and the views answer as before', async () => {
    await migrate(t.db);
    await expectViewsEqualFormer(t);
  });
});
