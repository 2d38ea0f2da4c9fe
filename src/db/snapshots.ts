import { sql, type Kysely } from 'kysely';
import type { Db, Tx } from './connect.js';
import { copyText } from './copy.js';
import {
  parkingSnapshots, qualifiedName, snapshotCopyColumns, snapshotCopyValues, snapshotRelationOf, vehicleSnapshots,
  type ParkingRow, type SnapshotKind, type SnapshotRelation, type VehicleRow,
} from '../relations/index.js';
import type { Database } from './tables.js';
import type { UnitStatus } from './unit-status.js';
import type { BBox } from '../tiling/types.js';
import { insertRejects, type RejectInput } from './ledger.js';

/**
 * Every query on the snapshot time series (tables: src/relations/*-snapshots; views: sql/views): partitions created on demand and dropped by
 * retention, one COPY per snapshot and table, and what the next snapshot plans from.
 */

/** A snapshot tile's outcome: the run tiles' words (unit-status.ts); a snapshot plans no pending tile. */
export type SnapshotTileStatus = Exclude<UnitStatus, 'pending'>;
export type SnapshotStatus = 'complete' | 'partial' | 'failed';

// The rows and their tables are the snapshot relations' own (src/relations/vehicle-snapshots, parking-snapshots).
export type { ParkingRow, SnapshotKind, VehicleRow };

export interface SnapshotTileRow {
  readonly tileId: string;
  readonly parentId: string | null;
  readonly depth: number;
  readonly bbox: BBox;
  readonly status: SnapshotTileStatus;
  readonly objects: number;
  readonly stored: number;
  readonly attempts: number;
  readonly error: string | null;
}

export interface SnapshotRecord {
  readonly kind: SnapshotKind;
  readonly status: SnapshotStatus;
  readonly tiles: number;
  readonly tilesFailed: number;
  readonly tilesCapped: number;
  readonly objects: number;
  readonly requests: number;
  readonly detailRequests: number;
}

/** A record of an answer not stored as it was sent (efa.rejects), with the tile whose answer held it. */
export interface SnapshotReject extends RejectInput {
  readonly unit: string;
}

/** One snapshot of one kind, as written: the record, its tiles, its rows and what was not stored as sent. */
export interface SnapshotWrite<Row> {
  readonly record: SnapshotRecord;
  readonly tiles: readonly SnapshotTileRow[];
  readonly rows: readonly Row[];
  readonly rejects?: readonly SnapshotReject[];
}

export interface SnapshotRef {
  readonly runId: string;
  readonly source: string;
  readonly jobName: string;
  readonly takenAt: Date;
}

const utcDay = (at: Date): string => at.toISOString().slice(0, 10);
const polygon = ([x0, y0, x1, y1]: readonly number[]): string =>
  `SRID=4326;POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))`;

/**
 * The partitions of the snapshot's UTC day, in a transaction of their own (the function serialises
 * concurrent jobs with an advisory lock held to its commit, so it must not wait on a long writer).
 */
export async function ensureSnapshotPartitions(db: Db, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await sql`SELECT efa.ensure_snapshot_partitions(${utcDay(at)}::date)`.execute(tx.kysely);
  });
}

/**
 * Drops the partitions of the days before `keepFrom` (UTC) whole, with the latest positions that only
 * they held; returns their names, or undefined when a reader held the table longer than the lock
 * timeout. A DROP waits for an exclusive lock on the parent, and every query started after it queues
 * behind that wait (a 161 s dashboard query once froze the warehouse for as long): so it waits at most
 * a second, and a busy table is left to the next snapshot, which tries again.
 */
export async function dropSnapshotPartitions(db: Db, keepFrom: Date): Promise<string[] | undefined> {
  try {
    return await db.transaction(async (tx) => {
      await sql`SET LOCAL lock_timeout = '1s'`.execute(tx.kysely);
      const r = await sql<{ part: string }>`SELECT efa.drop_snapshot_partitions(${utcDay(keepFrom)}::date) AS part`.execute(tx.kysely);
      // A scan of efa.vehicle_latest, once a day: an index on taken_at would make every snapshot's update of it costlier (sql/030).
      if (r.rows.length > 0) await sql`DELETE FROM efa.vehicle_latest WHERE taken_at < ${utcDay(keepFrom)}::date::timestamp AT TIME ZONE 'UTC'`.execute(tx.kysely);
      return r.rows.map((x) => x.part);
    });
  } catch (e) {
    if ((e as { code?: unknown }).code === '55P03') return undefined;
    throw e;
  }
}

/** The hourly roll-ups (sql/028) of one source before `keepFrom`: kept longer than the raw series, by their own setting. */
export async function pruneSnapshotRollups(db: Db, source: string, keepFrom: Date): Promise<number> {
  return db.transaction(async (tx) => {
    let deleted = 0;
    for (const table of ['efa.snapshot_hour_counts', 'efa.vehicle_hourly', 'efa.vehicle_hex_hourly_cells', 'efa.parking_hourly']) {
      const r = await sql`DELETE FROM ${sql.raw(table)} WHERE source = ${source} AND hour < ${keepFrom}`.execute(tx.kysely);
      deleted += Number(r.numAffectedRows ?? 0);
    }
    return deleted;
  });
}

const tileColumns = ['taken_at', 'run_id', 'source', 'kind', 'tile_id', 'parent_id', 'depth', 'bbox', 'status', 'objects', 'stored', 'attempts', 'error'];
async function writeRecord(tx: Tx, ref: SnapshotRef, record: SnapshotRecord, rows: number): Promise<void> {
  await sql`
    INSERT INTO efa.snapshots (run_id, kind, source, job_name, taken_at, status, tiles, tiles_failed, tiles_capped, objects, rows, requests, detail_requests)
    VALUES (${ref.runId}::bigint, ${record.kind}, ${ref.source}, ${ref.jobName}, ${ref.takenAt}, ${record.status}, ${record.tiles},
            ${record.tilesFailed}, ${record.tilesCapped}, ${record.objects}, ${rows}, ${record.requests}, ${record.detailRequests})`.execute(tx.kysely);
}

async function writeTiles(tx: Tx, ref: SnapshotRef, kind: SnapshotKind, tiles: readonly SnapshotTileRow[]): Promise<void> {
  const at = ref.takenAt.toISOString();
  await tx.copyIn('efa.snapshot_tiles', tileColumns, copyText(tiles, (t) => [
    at, ref.runId, ref.source, kind, t.tileId, t.parentId, t.depth, polygon(t.bbox), t.status, t.objects, t.stored, t.attempts, t.error,
  ]));
}

/** Adds the stored snapshot to the hourly roll-ups the views read (sql/028), in the same transaction: once, or not at all. */
async function rollUp(tx: Tx, ref: SnapshotRef, kind: SnapshotKind): Promise<void> {
  await sql`SELECT efa.rollup_snapshot(${ref.runId}::bigint, ${kind})`.execute(tx.kysely);
}

/** What the snapshot did not store as sent, per tile, with its reason and the record (efa.rejects). */
async function writeRejects(tx: Tx, ref: SnapshotRef, rejects: readonly SnapshotReject[]): Promise<void> {
  const byUnit = new Map<string, RejectInput[]>();
  for (const r of rejects) byUnit.set(r.unit, [...(byUnit.get(r.unit) ?? []), r]);
  for (const [unit, list] of byUnit) {
    await insertRejects(tx.kysely, ref, unit, list);
  }
}

/** A vehicle snapshot: its record, its tiles and its rows, each table with one COPY (the partitions must exist). */
export async function writeVehicleSnapshot(tx: Tx, ref: SnapshotRef, snapshot: SnapshotWrite<VehicleRow>): Promise<void> {
  await writeSnapshot(tx, ref, vehicleSnapshots, snapshot);
}

export async function writeParkingSnapshot(tx: Tx, ref: SnapshotRef, snapshot: SnapshotWrite<ParkingRow>): Promise<void> {
  await writeSnapshot(tx, ref, parkingSnapshots, snapshot);
}

/** One snapshot of one relation: its record, tiles, rejects and rows, then its share of the hourly roll-ups. */
async function writeSnapshot<Row>(tx: Tx, ref: SnapshotRef, relation: SnapshotRelation<Row>, snapshot: SnapshotWrite<Row>): Promise<void> {
  await writeRecord(tx, ref, snapshot.record, snapshot.rows.length);
  await writeTiles(tx, ref, relation.kind, snapshot.tiles);
  await writeRejects(tx, ref, snapshot.rejects ?? []);
  if (snapshot.rows.length > 0) {
    const shared = [ref.takenAt.toISOString(), ref.runId, ref.source];
    await tx.copyIn(qualifiedName(relation.table), snapshotCopyColumns(relation), copyText(snapshot.rows, (row) => snapshotCopyValues(relation, shared, row)));
  }
  await rollUp(tx, ref, relation.kind);
}

/** A usable snapshot a job already stored at one instant: `run --now` with that time has nothing to do. */
export interface StoredSnapshot {
  readonly runId: string;
  readonly kind: SnapshotKind;
  readonly status: SnapshotStatus;
}

/**
 * The complete or partial snapshots of a job and source taken at exactly `at` (an instant, whatever
 * zone it was written in). A failed one does not count: its retake is what a retried backfill is for.
 */
export async function storedSnapshotsAt(db: Kysely<Database>, source: string, jobName: string, at: Date): Promise<StoredSnapshot[]> {
  const r = await sql<{ run_id: string; kind: SnapshotKind; status: SnapshotStatus }>`
    SELECT run_id::text AS run_id, kind, status FROM efa.snapshots
    WHERE source = ${source} AND job_name = ${jobName} AND taken_at = ${at} AND status <> 'failed'
    ORDER BY kind, run_id`.execute(db);
  return r.rows.map((x) => ({ runId: x.run_id, kind: x.kind, status: x.status }));
}

/** What the previous usable snapshot of a job saw: where to plan the next one's tiles. */
export interface PreviousSnapshot {
  readonly runId: string;
  readonly takenAt: Date;
  /** lon,lat pairs of the objects stored. */
  readonly points: Float64Array;
  /** Objects the answers held (of every kind) per object stored: above 1 when a server mixes others in. */
  readonly objectsPerRow: number;
  /** The tiles it looked at (split tiles replaced by their children), with the objects each answer held. */
  readonly leaves: readonly { bbox: [number, number, number, number]; objects: number }[];
}

/** The latest complete or partial snapshot of a job and kind, with the positions it stored. */
export async function previousSnapshot(db: Kysely<Database>, jobName: string, kind: SnapshotKind): Promise<PreviousSnapshot | undefined> {
  const last = await sql<{ run_id: string; taken_at: Date; objects: number; rows: number }>`
    SELECT run_id::text AS run_id, taken_at, objects, rows FROM efa.snapshots
    WHERE job_name = ${jobName} AND kind = ${kind} AND status <> 'failed'
    ORDER BY taken_at DESC LIMIT 1`.execute(db);
  const snap = last.rows[0];
  if (!snap) return undefined;
  const table = sql.raw(qualifiedName(snapshotRelationOf[kind].table));
  // taken_at first: the planner reads one partition.
  const rows = await sql<{ x: number; y: number }>`
    SELECT ST_X(geom) AS x, ST_Y(geom) AS y FROM ${table}
    WHERE taken_at = ${snap.taken_at} AND run_id = ${snap.run_id}::bigint`.execute(db);
  const points = new Float64Array(rows.rows.length * 2);
  rows.rows.forEach((r, i) => {
    points[2 * i] = r.x;
    points[2 * i + 1] = r.y;
  });
  const objectsPerRow = snap.rows > 0 ? Math.max(1, snap.objects / snap.rows) : 1;
  const tiles = await sql<{ x0: number; y0: number; x1: number; y1: number; objects: number }>`
    SELECT ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1, objects FROM efa.snapshot_tiles
    WHERE taken_at = ${snap.taken_at} AND run_id = ${snap.run_id}::bigint AND kind = ${kind} AND status <> 'split'
    ORDER BY tile_id`.execute(db);
  const leaves = tiles.rows.map((t) => ({ bbox: [t.x0, t.y0, t.x1, t.y1] as [number, number, number, number], objects: t.objects }));
  return { runId: snap.run_id, takenAt: new Date(snap.taken_at), points, objectsPerRow, leaves };
}
