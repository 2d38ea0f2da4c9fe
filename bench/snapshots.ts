/**
 * The snapshot sweep (sweeps.vehicles):
 *   requests   a cold snapshot and a second one of the unchanged world beside the floor
 *              ceil(vehicles / max) (and ceil(objects / max): every object an answer holds counts
 *              towards max, so where a server mixes other objects in, that is its floor)
 *   writer     rows/s of writeVehicleSnapshot (one COPY into the day-partitioned table, with its
 *              tiles and record) beside a raw COPY of the same rows into a plain table with the
 *              same columns and indexes, on the same database, in the same run
 */
import { sql } from 'kysely';
import { openDb } from '../src/db/open.js';
import type { Db } from '../src/db/connect.js';
import { copyText } from '../src/db/copy.js';
import { createRun } from '../src/db/runs.js';
import { migrate } from '../src/db/migrate.js';
import { ensureSnapshotPartitions, writeVehicleSnapshot, type VehicleRow } from '../src/db/snapshots.js';
import { startSimulator } from '../src/sim/index.js';
import { runJob } from '../src/run/index.js';
import { createLogger } from '../src/util/log.js';
import { createScratchDb, inlineJob, int, postgresReachable, ratio, secs, type BenchLine, type BenchResult } from './util.js';

const silent = createLogger({ level: 'error', format: 'json' });

async function benchRequests(): Promise<BenchLine[]> {
  // A fixed clock: the second snapshot sees the world of the first (night two's unchanged world).
  const sim = await startSimulator({ port: 0, seed: 1, size: 20_000, clock: '2026-01-01T08:00:00Z' });
  const db = await openDb('pglite:memory');
  try {
    const max = 200;
    const loaded = inlineJob({
      name: 'bench-vehicles', baseUrl: sim.url, region: { bbox: [9.05, 48.7, 9.3, 48.85] },
      rateLimit: { requestsPerSecond: 1000, concurrency: 8 }, sweeps: { vehicles: { maxPerRequest: max } },
    });
    const lines: BenchLine[] = [];
    for (const [label, at] of [['cold snapshot', '2026-01-01T08:00:00Z'], ['unchanged world', '2026-01-01T08:05:00Z']] as const) {
      const s = await runJob({ loaded, db, log: silent, takenAt: new Date(at) });
      const snap = s.snapshots?.[0];
      if (!snap) throw new Error(`${label}: no snapshot taken (${s.status}: ${s.error ?? ''})`);
      const objectFloor = Math.max(1, Math.ceil(snap.objects / max));
      console.log(`${label}: ${snap.requests} requests for ${snap.rows} vehicles (${snap.others} other objects in the answers); floor ceil(vehicles/max) = ${snap.floor}, ceil(objects/max) = ${objectFloor}`);
      lines.push({ metric: `snapshot requests, ${label}`, value: int(snap.requests), baseline: `floor ${snap.floor} (objects ${objectFloor})`, ratio: ratio(snap.requests, snap.floor) });
    }
    return lines;
  } finally {
    await db.close();
    await sim.stop();
  }
}

function rows(n: number): VehicleRow[] {
  return Array.from({ length: n }, (_, i) => ({
    vehicleKey: `V${i}:prov${i % 3}:area${i % 7}`, providerId: `prov${i % 3}`, areaId: `area${i % 7}`, kind: i % 2 ? 'BIKE' : 'CAR',
    engine: 'ELECTRIC', locationType: 'FREEFLOATER', chargePercent: i % 101, fuelPercent: null, available: i % 5 !== 0, detailed: false, stationId: null, stationSlots: null, model: null, rangeKm: null,
    lon: 9.05 + ((i * 7919) % 25_000) / 100_000, lat: 48.7 + ((i * 104_729) % 15_000) / 100_000,
  }));
}

async function benchWriter(label: string, db: Db, n: number): Promise<BenchLine[]> {
  await migrate(db);
  // The same columns (identity included), a primary key and the same indexes, not partitioned.
  await sql`CREATE TABLE bench_raw (LIKE efa.vehicle_snapshots INCLUDING IDENTITY INCLUDING DEFAULTS, PRIMARY KEY (taken_at, source, vehicle_key))`.execute(db.kysely);
  await sql`CREATE INDEX ON bench_raw USING gist (geom)`.execute(db.kysely);
  await sql`CREATE INDEX ON bench_raw (source, vehicle_key, taken_at DESC)`.execute(db.kysely);
  const data = rows(n);
  const at = new Date('2026-01-02T10:00:00Z');
  const cols = ['taken_at', 'run_id', 'source', 'vehicle_key', 'provider_id', 'area_id', 'kind', 'engine', 'location_type', 'charge_percent', 'fuel_percent', 'available', 'detailed', 'geom'];
  let t = performance.now();
  await db.transaction((tx) => tx.copyIn('bench_raw', cols, copyText(data, (v) => [
    at.toISOString(), 1, 'bench', v.vehicleKey, v.providerId, v.areaId, v.kind, v.engine, v.locationType, v.chargePercent, v.fuelPercent, v.available, v.detailed,
    `SRID=4326;POINT(${v.lon} ${v.lat})`,
  ])));
  const rawMs = performance.now() - t;
  const run = await createRun(db.kysely, { jobName: 'bench', jobHash: 'h', scope: { source: 'bench' } as never, options: {} });
  t = performance.now();
  await ensureSnapshotPartitions(db, at);
  await db.transaction((tx) => writeVehicleSnapshot(tx, { runId: run.runId, source: 'bench', jobName: 'bench', takenAt: at }, {
    record: { kind: 'vehicles', status: 'complete', tiles: 1, tilesFailed: 0, tilesCapped: 0, objects: n, requests: 1, detailRequests: 0 },
    tiles: [{ tileId: 't', parentId: null, depth: 0, bbox: [9.05, 48.7, 9.3, 48.85], status: 'done', objects: n, stored: n, attempts: 1, error: null }],
    rows: data,
  }));
  const writerMs = performance.now() - t;
  const rate = (ms: number): number => n / (ms / 1000);
  console.log(`${label}: ${int(n)} rows; raw COPY ${secs(rawMs)} (${int(rate(rawMs))} rows/s), snapshot writer ${secs(writerMs)} (${int(rate(writerMs))} rows/s)`);
  return [{ metric: `snapshot writer rows/s (${label})`, value: int(rate(writerMs)), baseline: `raw COPY ${int(rate(rawMs))}`, ratio: ratio(rate(writerMs), rate(rawMs)) }];
}

export async function benchSnapshots(): Promise<BenchResult> {
  const lines = await benchRequests();
  const pglite = await openDb('pglite:memory');
  try {
    lines.push(...(await benchWriter('PGlite', pglite, 20_000)));
  } finally {
    await pglite.close();
  }
  const notes: string[] = [];
  const reach = await postgresReachable();
  if (reach.ok) {
    const scratch = await createScratchDb('efa_bench_snap');
    const db = await openDb(scratch.url);
    try {
      lines.push(...(await benchWriter('PostgreSQL', db, 200_000)));
    } finally {
      await db.close();
      await scratch.drop();
    }
  } else notes.push(`PostgreSQL not reachable (${reach.reason}): writer measured on PGlite only`);
  return { lines, notes };
}
