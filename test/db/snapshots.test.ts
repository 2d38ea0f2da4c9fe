import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../src/db/runs.js';
import { migrate } from '../../src/db/migrate.js';
import {
  dropSnapshotPartitions,
  ensureSnapshotPartitions,
  writeParkingSnapshot,
  writeVehicleSnapshot,
  type ParkingRow,
  type SnapshotRecord,
  type SnapshotStatus,
  type VehicleRow,
} from '../../src/db/snapshots.js';
import { openDb } from '../../src/db/open.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';

const box = [9.1, 48.7, 9.2, 48.8] as const;

function vehicle(key: string, provider: string, kind: string, lon: number, lat: number, available: boolean | null = null): VehicleRow {
  return {
    vehicleKey: key, providerId: provider, areaId: null, kind, engine: 'ELECTRIC', locationType: 'FREEFLOATER',
    chargePercent: 50, fuelPercent: null, available, detailed: false, stationId: null, stationSlots: null, model: null, rangeKm: null, lon, lat,
  };
}

function record(kind: 'vehicles' | 'parking', status: SnapshotStatus): SnapshotRecord {
  return { kind, status, tiles: 1, tilesFailed: status === 'complete' ? 0 : 1, tilesCapped: 0, objects: 0, requests: 1, detailRequests: 0 };
}

async function snapshot(t: TestDb, at: string, rows: VehicleRow[], status: SnapshotStatus = 'complete', job = 'veh'): Promise<void> {
  const run = await createRun(t.db.kysely, { jobName: job, jobHash: 'h', scope: { source: 'src' } as never, options: {} });
  const takenAt = new Date(at);
  await ensureSnapshotPartitions(t.db, takenAt);
  await t.db.transaction((tx) =>
    writeVehicleSnapshot(tx, { runId: run.runId, source: 'src', jobName: job, takenAt }, {
      record: record('vehicles', status),
      tiles: [{ tileId: 't0', parentId: null, depth: 0, bbox: box, status: status === 'complete' ? 'done' : 'failed', objects: rows.length, stored: rows.length, attempts: 1, error: null }],
      rows,
    }),
  );
}

async function parkingSnapshot(t: TestDb, at: string, rows: ParkingRow[]): Promise<void> {
  const run = await createRun(t.db.kysely, { jobName: 'park', jobHash: 'h', scope: { source: 'src' } as never, options: {} });
  const takenAt = new Date(at);
  await ensureSnapshotPartitions(t.db, takenAt);
  await t.db.transaction((tx) =>
    writeParkingSnapshot(tx, { runId: run.runId, source: 'src', jobName: 'park', takenAt }, { record: record('parking', 'complete'), tiles: [], rows }),
  );
}

const partitions = async (t: TestDb): Promise<string[]> => {
  const r = await sql<{ name: string }>`
    SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'vehicle_snapshots' ORDER BY 1`.execute(t.db.kysely);
  return r.rows.map((x) => x.name);
};

describe('snapshot storage: partitions, retention and views', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    await sql`SET TimeZone = 'UTC'`.execute(t.db.kysely);
  }, 120_000);
  afterAll(async () => t?.dispose());

  it('creates one partition per UTC day on demand, and no default partition', async () => {
    await snapshot(t, '2026-03-01T23:59:00Z', [vehicle('a', 'p1', 'BIKE', 9.15, 48.75)]);
    await snapshot(t, '2026-03-02T00:01:00Z', [vehicle('a', 'p1', 'BIKE', 9.15, 48.75)]);
    expect(await partitions(t)).toEqual(['vehicle_snapshots_20260301', 'vehicle_snapshots_20260302']);
    // A row outside every partition is refused, not parked in a default partition.
    await expect(
      sql`INSERT INTO efa.vehicle_snapshots (taken_at, run_id, source, vehicle_key, geom) VALUES ('2031-01-01', 1, 's', 'x', ST_Point(9, 48, 4326))`.execute(t.db.kysely),
    ).rejects.toThrow(/partition/);
  });

  it('drops whole partitions older than the retention and keeps the rest', async () => {
    await snapshot(t, '2026-03-03T12:00:00Z', [vehicle('a', 'p1', 'BIKE', 9.15, 48.75)]);
    const dropped = await dropSnapshotPartitions(t.db, new Date('2026-03-02T10:00:00Z'));
    expect(dropped).toEqual(['parking_snapshots_20260301', 'snapshot_tiles_20260301', 'vehicle_snapshots_20260301']);
    expect(await partitions(t)).toEqual(['vehicle_snapshots_20260302', 'vehicle_snapshots_20260303']);
    const left = await sql<{ d: string }>`SELECT DISTINCT to_char(taken_at, 'YYYY-MM-DD') AS d FROM efa.vehicle_snapshots ORDER BY 1`.execute(t.db.kysely);
    expect(left.rows.map((r) => r.d)).toEqual(['2026-03-02', '2026-03-03']);
    const records = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.snapshots WHERE taken_at < '2026-03-02'`.execute(t.db.kysely);
    expect(records.rows[0]?.n).toBe(0);
    expect(await dropSnapshotPartitions(t.db, new Date('2026-03-02T10:00:00Z'))).toEqual([]);
  });

  it('counts only complete snapshots per provider, kind and hour', async () => {
    // Hour 10:00: three complete snapshots and one partial (left out, not read as zero).
    await snapshot(t, '2026-03-03T10:00:00Z', [vehicle('b1', 'p1', 'BIKE', 9.15, 48.75), vehicle('b2', 'p1', 'BIKE', 9.16, 48.75, false), vehicle('c1', 'p2', 'CAR', 9.17, 48.76)]);
    await snapshot(t, '2026-03-03T10:10:00Z', [vehicle('b1', 'p1', 'BIKE', 9.15, 48.75), vehicle('b2', 'p1', 'BIKE', 9.16, 48.75, true)]);
    await snapshot(t, '2026-03-03T10:20:00Z', [vehicle('b1', 'p1', 'BIKE', 9.15, 48.75)]);
    await snapshot(t, '2026-03-03T10:30:00Z', [], 'partial');
    const r = await sql<{ provider_id: string; kind: string; snapshots: number; snapshots_incomplete: number; vehicles_avg: string; available_avg: string; available_min: number; available_max: number }>`
      SELECT provider_id, kind, snapshots, snapshots_incomplete, vehicles_avg::text, available_avg::text, available_min, available_max
      FROM efa.vehicle_availability_hourly WHERE hour = '2026-03-03T10:00:00Z' ORDER BY provider_id`.execute(t.db.kysely);
    // p1 BIKE: vehicles 2, 2, 1 → 5/3; available (not false) 1, 2, 1 → 4/3, min 1, max 2.
    // p2 CAR: 1, 0, 0 → 1/3; min 0 (absent from two snapshots), max 1.
    expect(r.rows).toEqual([
      { provider_id: 'p1', kind: 'BIKE', snapshots: 3, snapshots_incomplete: 1, vehicles_avg: '1.67', available_avg: '1.33', available_min: 1, available_max: 2 },
      { provider_id: 'p2', kind: 'CAR', snapshots: 3, snapshots_incomplete: 1, vehicles_avg: '0.33', available_avg: '0.33', available_min: 0, available_max: 1 },
    ]);
  });

  it('puts vehicles into 250 m hexagons, each in one cell', async () => {
    const r = await sql<{ kind: string; vehicles_avg: string; valid: boolean; inside: number }>`
      SELECT h.kind, h.vehicles_avg::text, ST_IsValid(h.geom) AS valid,
             (SELECT count(*)::int FROM efa.vehicle_snapshots v WHERE v.taken_at = '2026-03-03T10:00:00Z' AND ST_Intersects(v.geom, h.geom)) AS inside
      FROM efa.vehicle_hex_hourly h WHERE h.hour = '2026-03-03T10:00:00Z' ORDER BY h.kind, h.vehicles_avg`.execute(t.db.kysely);
    // b1 (always there) and b2 (two of three) are 740 m apart: two cells; c1 one cell of its own.
    expect(r.rows.map((x) => [x.kind, x.vehicles_avg])).toEqual([['BIKE', '0.67'], ['BIKE', '1.00'], ['CAR', '0.33']]);
    for (const x of r.rows) expect(x.valid).toBe(true);
    expect(r.rows.map((x) => x.inside)).toEqual([1, 1, 1]);
  });

  it('gives the latest position of each vehicle', async () => {
    const r = await sql<{ vehicle_key: string; seen_at: Date; in_latest_snapshot: boolean }>`
      SELECT vehicle_key, seen_at, in_latest_snapshot FROM efa.latest_vehicles ORDER BY vehicle_key`.execute(t.db.kysely);
    expect(r.rows.map((x) => [x.vehicle_key, new Date(x.seen_at).toISOString(), x.in_latest_snapshot])).toEqual([
      ['a', '2026-03-03T12:00:00.000Z', true],
      ['b1', '2026-03-03T10:20:00.000Z', false],
      ['b2', '2026-03-03T10:10:00.000Z', false],
      ['c1', '2026-03-03T10:00:00.000Z', false],
    ]);
  });

  it('averages parking occupancy per hour and per weekday-hour', async () => {
    const car = (free: number): ParkingRow => ({
      parkingKey: 'P1', name: 'P Mitte', kind: 2, capacity: 100, free, occupied: 100 - free, lon: 9.15, lat: 48.75,
      dataSource: 'REALTIME', measuredAt: null, occ: null, occLos: null, occLevel: null, occTrend: null,
    });
    await parkingSnapshot(t, '2026-03-03T08:00:00Z', [car(40)]); // Tuesday
    await parkingSnapshot(t, '2026-03-03T08:30:00Z', [car(20)]);
    await parkingSnapshot(t, '2026-03-10T08:15:00Z', [car(60)]); // the next Tuesday
    const hourly = await sql<{ snapshots: number; free_avg: string; free_min: number; free_max: number; occupancy_avg: string }>`
      SELECT snapshots, free_avg::text, free_min, free_max, occupancy_avg::text FROM efa.parking_occupancy_hourly
      WHERE hour = '2026-03-03T08:00:00Z'`.execute(t.db.kysely);
    expect(hourly.rows).toEqual([{ snapshots: 2, free_avg: '30.00', free_min: 20, free_max: 40, occupancy_avg: '0.7000' }]);
    const week = await sql<{ weekday: number; hour_of_day: number; days: number; readings: number; free_avg: string; occupancy_avg: string }>`
      SELECT weekday, hour_of_day, days, readings, free_avg::text, occupancy_avg::text FROM efa.parking_occupancy_weekday_hour`.execute(t.db.kysely);
    expect(week.rows).toEqual([{ weekday: 2, hour_of_day: 8, days: 2, readings: 3, free_avg: '40.00', occupancy_avg: '0.6000' }]);
  });

  it('counts only REALTIME figures as measured; PROFILE figures (forecasts) apart, UNKNOWN in no mean', async () => {
    const lot = (free: number, dataSource: ParkingRow['dataSource'], measuredAt: string | null = null): ParkingRow => ({
      parkingKey: 'P9', name: 'P Profil', kind: 2, capacity: 200, free, occupied: null, lon: 9.16, lat: 48.76,
      dataSource, measuredAt: measuredAt === null ? null : new Date(measuredAt), occ: null, occLos: null, occLevel: null, occTrend: null,
    });
    await parkingSnapshot(t, '2026-03-05T14:00:00Z', [lot(100, 'REALTIME', '2026-03-05T13:58:00Z')]);
    await parkingSnapshot(t, '2026-03-05T14:20:00Z', [lot(10, 'PROFILE')]);
    await parkingSnapshot(t, '2026-03-05T14:40:00Z', [lot(30, 'PROFILE')]);
    await parkingSnapshot(t, '2026-03-05T14:50:00Z', [lot(0, 'UNKNOWN')]);
    const hourly = await sql<Record<string, unknown>>`
      SELECT readings, free_avg::text, free_min, free_max, occupancy_avg::text, profile_readings, profile_free_avg::text, unknown_readings
      FROM efa.parking_occupancy_hourly WHERE parking_key = 'P9'`.execute(t.db.kysely);
    expect(hourly.rows).toEqual([{
      readings: 1, free_avg: '100.00', free_min: 100, free_max: 100, occupancy_avg: '0.5000',
      profile_readings: 2, profile_free_avg: '20.00', unknown_readings: 1,
    }]);
    const stored = await sql<{ data_source: string; measured_at: Date | null }>`
      SELECT data_source, measured_at FROM efa.parking_snapshots WHERE parking_key = 'P9' ORDER BY taken_at`.execute(t.db.kysely);
    expect(stored.rows.map((r) => r.data_source)).toEqual(['REALTIME', 'PROFILE', 'PROFILE', 'UNKNOWN']);
    expect(new Date(stored.rows[0]?.measured_at ?? 0).toISOString()).toBe('2026-03-05T13:58:00.000Z');
    const week = await sql<Record<string, unknown>>`
      SELECT readings, free_avg::text, profile_readings, profile_free_avg::text FROM efa.parking_occupancy_weekday_hour WHERE parking_key = 'P9'`.execute(t.db.kysely);
    expect(week.rows).toEqual([{ readings: 1, free_avg: '100.00', profile_readings: 2, profile_free_avg: '20.00' }]);
  });
});

describe.runIf(dbKind() === 'postgres')('partitions under concurrency (PostgreSQL)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  }, 120_000);
  afterAll(async () => t?.dispose());

  it('two jobs creating the same day at once both succeed', async () => {
    const others = await Promise.all(Array.from({ length: 4 }, () => openDb(t.url)));
    try {
      const at = new Date('2026-04-01T06:00:00Z');
      await Promise.all([t.db, ...others].map((db) => ensureSnapshotPartitions(db, at)));
      expect(await partitions(t)).toEqual(['vehicle_snapshots_20260401']);
    } finally {
      await Promise.all(others.map((db) => db.close()));
    }
  });
});
