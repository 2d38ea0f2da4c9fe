/**
 * The lake (`efa-sync export --lake`, src/lake/): 30 days of hourly vehicle snapshots written by the
 * project's own snapshot writer, then the lake written twice. The first export writes 30 day
 * partitions (time, rows/s, bytes, peak RSS: memory must not grow with the days); the second writes
 * nothing and must cost little (it reads efa.snapshots and the manifest, not the series).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../src/db/open.js';
import type { Db } from '../src/db/connect.js';
import { createRun } from '../src/db/runs.js';
import { migrate } from '../src/db/migrate.js';
import { ensureSnapshotPartitions, writeVehicleSnapshot, type VehicleRow } from '../src/db/snapshots.js';
import { exportLake, lakeRelationsOf } from '../src/lake/index.js';
import { createLogger } from '../src/util/log.js';
import { createScratchDb, int, mb, postgresReachable, sampleMemory, secs, type BenchLine, type BenchResult } from './util.js';

const silent = createLogger({ level: 'error', format: 'json' });
const DAYS = 30;
const SNAPSHOTS_PER_DAY = 24;

function vehicles(n: number, step: number): VehicleRow[] {
  return Array.from({ length: n }, (_, i) => ({
    vehicleKey: `V${i}:prov${i % 3}`, providerId: `prov${i % 3}`, areaId: `area${i % 7}`, kind: i % 2 ? 'BIKE' : 'CAR',
    engine: 'ELECTRIC', locationType: 'FREEFLOATER', chargePercent: (i + step) % 101, fuelPercent: null, available: (i + step) % 5 !== 0, detailed: false,
    stationId: null, stationSlots: null, model: null, rangeKm: null,
    lon: 9.05 + ((i * 7919 + step * 13) % 25_000) / 100_000, lat: 48.7 + ((i * 104_729 + step * 7) % 15_000) / 100_000,
  }));
}

async function fill(db: Db, perSnapshot: number): Promise<number> {
  await migrate(db);
  let rows = 0;
  for (let d = 0; d < DAYS; d++) {
    for (let h = 0; h < SNAPSHOTS_PER_DAY; h++) {
      const at = new Date(Date.UTC(2026, 0, 1 + d, h));
      if (h === 0) await ensureSnapshotPartitions(db, at);
      // A snapshot is a run of its own (efa.snapshots is keyed by run and kind), as the job makes them.
      const run = await createRun(db.kysely, { jobName: 'bench-lake', jobHash: 'h', scope: { source: 'bench' } as never, options: {} });
      const data = vehicles(perSnapshot, d * SNAPSHOTS_PER_DAY + h);
      await db.transaction((tx) => writeVehicleSnapshot(tx, { runId: run.runId, source: 'bench', jobName: 'bench-lake', takenAt: at }, {
        record: { kind: 'vehicles', status: 'complete', tiles: 1, tilesFailed: 0, tilesCapped: 0, objects: perSnapshot, requests: 1, detailRequests: 0 },
        tiles: [{ tileId: 't', parentId: null, depth: 0, bbox: [9.05, 48.7, 9.3, 48.85], status: 'done', objects: perSnapshot, stored: perSnapshot, attempts: 1, error: null }],
        rows: data,
      }));
      rows += data.length;
    }
  }
  // The runs end: a run still running holds its source's days back from the lake.
  await db.kysely.updateTable('efa.runs').set({ status: 'succeeded', finished_at: new Date() }).where('job_name', '=', 'bench-lake').execute();
  return rows;
}

async function benchOn(label: string, db: Db, perSnapshot: number): Promise<BenchLine[]> {
  let t = performance.now();
  const rows = await fill(db, perSnapshot);
  console.log(`${label}: ${int(rows)} vehicle rows over ${DAYS} days written in ${secs(performance.now() - t)}`);
  const dir = await mkdtemp(join(tmpdir(), 'efa-sync-bench-lake-'));
  try {
    const relations = lakeRelationsOf(undefined);
    const mem = sampleMemory();
    t = performance.now();
    const first = await exportLake(db, { dir, relations }, silent);
    const firstMs = performance.now() - t;
    const peaks = mem.stop();
    t = performance.now();
    const again = await exportLake(db, { dir, relations }, silent);
    const againMs = performance.now() - t;
    console.log(`${label}: first export ${first.written} partitions, ${int(first.rows)} rows, ${mb(first.bytes)} in ${secs(firstMs)} (${int(first.rows / (firstMs / 1000))} rows/s), peak RSS ${mb(peaks.rss)}`);
    console.log(`${label}: second export wrote ${again.written} partitions (kept ${again.kept}) in ${secs(againMs)}`);
    if (again.written !== 0) throw new Error(`${label}: the second export rewrote ${again.written} partitions`);
    return [
      { metric: `lake: first export rows/s (${label}, ${DAYS} days)`, value: int(first.rows / (firstMs / 1000)), baseline: `${int(first.rows)} rows, ${mb(first.bytes)}, peak RSS ${mb(peaks.rss)}` },
      { metric: `lake: second export (${label})`, value: secs(againMs), baseline: `${again.written} rewritten, ${again.kept} kept` },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchLake(): Promise<BenchResult> {
  const notes: string[] = [];
  const lines: BenchLine[] = [];
  const reach = await postgresReachable();
  if (reach.ok) {
    const scratch = await createScratchDb('efa_bench_lake');
    const db = await openDb(scratch.url);
    try {
      lines.push(...(await benchOn('PostgreSQL', db, 2_000)));
    } finally {
      await db.close();
      await scratch.drop();
    }
  } else notes.push(`PostgreSQL not reachable (${reach.reason}): the lake measured on PGlite only`);
  const pglite = await openDb('pglite:memory');
  try {
    lines.push(...(await benchOn('PGlite', pglite, 500)));
  } finally {
    await pglite.close();
  }
  return { lines, notes };
}
