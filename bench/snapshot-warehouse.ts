/**
 * `--only snapshot-warehouse`: a warehouse of DAYS days of snapshots every EVERY minutes, written through
 * the project's own snapshot writer (its COPY, its roll-ups), then the dashboard questions of issue 26
 * asked of the views, best of 3 each, and the cost of one snapshot write on the first day beside the
 * last (it must not grow with the history stored). PostgreSQL only: PGlite at tens of millions of rows
 * is not what the embedded default is for.
 *
 * Size: BENCH_WAREHOUSE_DAYS (30), BENCH_WAREHOUSE_VEHICLES (5000), BENCH_WAREHOUSE_PARKING (300),
 * BENCH_WAREHOUSE_EVERY_MIN (5). The issue's warehouse (30 days, 5,000 vehicles) is ~43 M vehicle rows
 * and takes hours to build on a 2-core machine through the writer alone; BENCH_WAREHOUSE_GROW=1 writes
 * the first and the last day through the writer and grows the days between by SQL copies of the first
 * (bench/snapshot-grow.ts), as the issue's own measurement did, and vacuums them before the last day.
 */
import { sql } from 'kysely';
import type { Db } from '../src/db/connect.js';
import { createRun } from '../src/db/runs.js';
import { migrate } from '../src/db/migrate.js';
import { openDb } from '../src/db/open.js';
import { ensureSnapshotPartitions, writeParkingSnapshot, writeVehicleSnapshot, type ParkingRow, type VehicleRow } from '../src/db/snapshots.js';
import { copySnapshotDay } from './snapshot-grow.js';
import { createScratchDb, int, postgresReachable, ratio, type BenchLine, type BenchResult } from './util.js';

const env = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

function vehicles(n: number, step: number): VehicleRow[] {
  return Array.from({ length: n }, (_, i) => {
    // Each vehicle drifts a little and is rented now and then: the hexagons and availability move.
    const drift = ((i * 31 + step * 7) % 200) / 100_000;
    return {
      vehicleKey: `${i}:provider${i % 6}`, providerId: `provider${i % 6}`, areaId: null, kind: i % 3 === 0 ? 'CAR' : i % 3 === 1 ? 'BIKE' : 'SCOOTER',
      engine: null, locationType: 'FREEFLOATER', chargePercent: (i + step) % 101, fuelPercent: null, available: (i + step) % 9 !== 0,
      detailed: false, stationId: null, stationSlots: null, model: null, rangeKm: null,
      lon: 9.05 + ((i * 7919) % 25_000) / 100_000 + drift, lat: 48.7 + ((i * 104_729) % 15_000) / 100_000 + drift,
    };
  });
}

function parking(n: number, step: number): ParkingRow[] {
  return Array.from({ length: n }, (_, i) => {
    const capacity = 50 + (i % 20) * 25;
    const hour = (step / 12) % 24;
    return {
      parkingKey: `P${i}`, name: `Car park ${i}`, kind: 1, capacity, free: Math.round(capacity * (0.5 + 0.4 * Math.sin((hour + i) / 3.8))), occupied: null,
      dataSource: 'REALTIME', measuredAt: null, occ: null, occLos: null, occLevel: null, occTrend: null, lon: 9.1 + i / 5000, lat: 48.75,
    };
  });
}

async function writeOne(db: Db, takenAt: Date, step: number, sizes: { vehicles: number; parking: number }): Promise<number> {
  const t = performance.now();
  await ensureSnapshotPartitions(db, takenAt);
  for (const kind of ['vehicles', 'parking'] as const) {
    const run = await createRun(db.kysely, { jobName: `bench-${kind}`, jobHash: 'h', scope: { source: 'bench' } as never, options: {} });
    const ref = { runId: run.runId, source: 'bench', jobName: `bench-${kind}`, takenAt };
    const record = { kind, status: 'complete' as const, tiles: 1, tilesFailed: 0, tilesCapped: 0, objects: 0, requests: 1, detailRequests: 0 };
    await db.transaction((tx) =>
      kind === 'vehicles'
        ? writeVehicleSnapshot(tx, ref, { record, tiles: [], rows: vehicles(sizes.vehicles, step) })
        : writeParkingSnapshot(tx, ref, { record, tiles: [], rows: parking(sizes.parking, step) }),
    );
    await sql`UPDATE efa.runs SET status = 'succeeded', finished_at = now() WHERE run_id = ${run.runId}::bigint`.execute(db.kysely);
  }
  return performance.now() - t;
}

async function bestOf3(db: Db, query: string): Promise<{ ms: number; rows: number }> {
  let best = Number.POSITIVE_INFINITY;
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = await sql`${sql.raw(query)}`.execute(db.kysely);
    best = Math.min(best, performance.now() - t);
    rows = r.rows.length;
  }
  return { ms: best, rows };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function benchSnapshotWarehouse(): Promise<BenchResult> {
  const reach = await postgresReachable();
  if (!reach.ok) return { lines: [], notes: [`PostgreSQL not reachable (${reach.reason}): the warehouse bench needs it`] };
  const days = env('BENCH_WAREHOUSE_DAYS', 30);
  const every = env('BENCH_WAREHOUSE_EVERY_MIN', 5);
  const sizes = { vehicles: env('BENCH_WAREHOUSE_VEHICLES', 5000), parking: env('BENCH_WAREHOUSE_PARKING', 300) };
  const scratch = await createScratchDb('efa_bench_warehouse');
  const db = await openDb(scratch.url);
  const lines: BenchLine[] = [];
  try {
    await migrate(db);
    const start = Date.parse('2026-10-01T00:00:00Z');
    const perDay = Math.round((24 * 60) / every);
    const firstDay: number[] = [];
    const lastDay: number[] = [];
    const grow = process.env['BENCH_WAREHOUSE_GROW'] === '1' && days > 2;
    for (let step = 0; step < days * perDay; step++) {
      if (grow && step >= perDay && step < (days - 1) * perDay) {
        // Days 2 to days-1: copies of day 1, one transaction per day.
        const day = Math.floor(step / perDay);
        const t = performance.now();
        await copySnapshotDay(db, new Date(start), new Date(start + day * 86_400_000));
        console.log(`day ${day + 1} of ${days} grown by SQL from day 1 in ${Math.round(performance.now() - t)} ms`);
        step += perDay - 1;
        continue;
      }
      if (grow && step === (days - 1) * perDay) {
        // What autovacuum does over the weeks a real warehouse takes to grow, the SQL copies leave to do
        // at once: done here, so it does not run beside (and time into) the last day's snapshots.
        const t = performance.now();
        await sql`VACUUM (ANALYZE)`.execute(db.kysely);
        console.log(`grown days vacuumed and analysed in ${Math.round(performance.now() - t)} ms`);
      }
      const ms = await writeOne(db, new Date(start + step * every * 60_000), step, sizes);
      if (step < perDay) firstDay.push(ms);
      if (step >= (days - 1) * perDay) lastDay.push(ms);
      if (step % perDay === perDay - 1) console.log(`day ${Math.round((step + 1) / perDay)} of ${days} written (median snapshot ${Math.round(median(step < perDay ? firstDay : lastDay.length > 0 ? lastDay : firstDay))} ms)`);
    }
    await sql`ANALYZE`.execute(db.kysely);
    const series = await sql<{ v: number; p: number }>`SELECT (SELECT count(*) FROM efa.vehicle_snapshots)::float8 AS v, (SELECT count(*) FROM efa.parking_snapshots)::float8 AS p`.execute(db.kysely);
    console.log(`warehouse: ${days} days every ${every} min, ${int(series.rows[0]?.v ?? 0)} vehicle rows, ${int(series.rows[0]?.p ?? 0)} parking rows`);
    lines.push({ metric: 'one snapshot write (vehicles + parking), last day, median', value: `${Math.round(median(lastDay))} ms`, baseline: `first day ${Math.round(median(firstDay))} ms`, ratio: ratio(median(lastDay), median(firstDay)) });
    const end = new Date(start + days * 86_400_000).toISOString();
    const questions: [string, string][] = [
      ['vehicles available per provider per hour, last 24 h', `SELECT hour, provider_id, sum(available_avg) FROM efa.vehicle_availability_hourly WHERE hour >= timestamptz '${end}' - interval '24 hours' GROUP BY 1, 2`],
      [`the same, ${days} days`, `SELECT hour, provider_id, sum(available_avg) FROM efa.vehicle_availability_hourly WHERE hour >= timestamptz '${end}' - interval '${days} days' GROUP BY 1, 2`],
      ['hex heat map, one hour', `SELECT cell_i, cell_j, vehicles_avg, geom FROM efa.vehicle_hex_hourly WHERE hour = timestamptz '${end}' - interval '1 hour'`],
      ['hex heat map, one day', `SELECT cell_i, cell_j, vehicles_avg, geom FROM efa.vehicle_hex_hourly WHERE hour >= timestamptz '${end}' - interval '24 hours'`],
      ['efa.latest_vehicles', 'SELECT * FROM efa.latest_vehicles'],
      ['parking per car park per hour, 7 days', `SELECT * FROM efa.parking_occupancy_hourly WHERE hour >= timestamptz '${end}' - interval '7 days'`],
      ['weekday x hour of one car park', `SELECT * FROM efa.parking_occupancy_weekday_hour WHERE parking_key = 'P7'`],
    ];
    for (const [label, query] of questions) {
      const r = await bestOf3(db, query);
      console.log(`${label}: ${int(r.rows)} rows in ${Math.round(r.ms)} ms (best of 3)`);
      lines.push({ metric: `${label} (${int(r.rows)} rows)`, value: `${Math.round(r.ms)} ms`, baseline: 'budget 1000 ms', ratio: ratio(r.ms, 1000) });
    }
    return { lines, notes: [`${days} days, every ${every} min, ${sizes.vehicles} vehicles and ${sizes.parking} car parks per snapshot${grow ? `; days 2-${days - 1} grown by SQL copies of day 1` : ''}`] };
  } finally {
    await db.close();
    await scratch.drop();
  }
}
