import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

export type RunStatus = 'running' | 'succeeded' | 'partial' | 'failed';

export interface TileRecord {
  readonly operation: string;
  readonly tileId: string;
  readonly parentId?: string | undefined;
  readonly depth: number;
  readonly bbox?: readonly [number, number, number, number] | undefined;
  readonly status: 'pending' | 'done' | 'split' | 'capped' | 'failed';
  readonly attempts: number;
  readonly hits: number;
  readonly durationMs: number;
  readonly error?: string | undefined;
}

export async function createRun(
  db: Kysely<Database>,
  run: { jobName: string; jobHash: string; options: unknown },
): Promise<string> {
  const row = await db
    .insertInto('efa.runs')
    .values({
      job_name: run.jobName,
      job_hash: run.jobHash,
      status: 'running',
      finished_at: null,
      heartbeat_at: new Date(),
      error: null,
      resumed_from: null,
      options: JSON.stringify(run.options),
      pid: process.pid,
      host: hostname(),
    })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  return String(row.run_id);
}

export async function finishRun(
  db: Kysely<Database>,
  runId: string,
  end: { status: Exclude<RunStatus, 'running'>; requests: number; stats: unknown; messages: unknown; error?: string | undefined },
): Promise<void> {
  await db
    .updateTable('efa.runs')
    .set({
      status: end.status,
      finished_at: new Date(),
      heartbeat_at: new Date(),
      requests: end.requests,
      stats: JSON.stringify(end.stats),
      messages: JSON.stringify(end.messages),
      error: end.error ?? null,
    })
    .where('run_id', '=', runId)
    .execute();
}

/** Progress records of one run, written in the same transaction as the rows they produced. */
export async function recordTiles(db: Kysely<Database>, runId: string, tiles: readonly TileRecord[]): Promise<void> {
  if (tiles.length === 0) return;
  const bboxText = tiles.map((t) => (t.bbox ? t.bbox.join(',') : null));
  await sql`
    INSERT INTO efa.run_tiles (run_id, operation, tile_id, parent_id, depth, bbox, status, attempts, hits, split, duration_ms, error)
    SELECT ${runId}::bigint, op, tile_id, parent_id, depth,
           CASE WHEN bbox IS NULL THEN NULL ELSE ST_MakeEnvelope(
             split_part(bbox, ',', 1)::float8, split_part(bbox, ',', 2)::float8,
             split_part(bbox, ',', 3)::float8, split_part(bbox, ',', 4)::float8, 4326) END,
           status, attempts, hits, status = 'split', duration_ms, error
    FROM unnest(${tiles.map((t) => t.operation)}::text[], ${tiles.map((t) => t.tileId)}::text[],
                ${tiles.map((t) => t.parentId ?? null)}::text[], ${tiles.map((t) => t.depth)}::int[], ${bboxText}::text[],
                ${tiles.map((t) => t.status)}::text[], ${tiles.map((t) => t.attempts)}::int[], ${tiles.map((t) => t.hits)}::int[],
                ${tiles.map((t) => Math.round(t.durationMs))}::int[], ${tiles.map((t) => t.error ?? null)}::text[])
      AS t(op, tile_id, parent_id, depth, bbox, status, attempts, hits, duration_ms, error)
    ON CONFLICT (run_id, operation, tile_id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
      hits = EXCLUDED.hits, split = EXCLUDED.split, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error,
      fetched_at = now()`.execute(db);
}

export interface UnfinishedRun {
  readonly runId: string;
  readonly jobHash: string;
  readonly startedAt: Date;
}

/** The newest run of a job still marked running: its process died (we hold the job's lock now). */
export async function findUnfinishedRun(db: Kysely<Database>, jobName: string): Promise<UnfinishedRun | undefined> {
  const row = await db
    .selectFrom('efa.runs')
    .select(['run_id', 'job_hash', 'started_at'])
    .where('job_name', '=', jobName)
    .where('status', '=', 'running')
    .orderBy('run_id', 'desc')
    .executeTakeFirst();
  return row ? { runId: String(row.run_id), jobHash: row.job_hash, startedAt: row.started_at } : undefined;
}

/** Units of one operation already finished in a run (a resumed run does not fetch them again). */
export async function finishedUnits(db: Kysely<Database>, runId: string, operation: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('efa.run_tiles')
    .select('tile_id')
    .where('run_id', '=', runId)
    .where('operation', '=', operation)
    .where('status', 'in', ['done', 'split', 'capped'])
    .execute();
  return new Set(rows.map((r) => r.tile_id));
}

/** CoordInfo tiles planned in a run and not yet fetched. */
export async function pendingTiles(
  db: Kysely<Database>,
  runId: string,
): Promise<{ id: string; parentId?: string; depth: number; bbox: [number, number, number, number] }[]> {
  const rows = await sql<{ tile_id: string; parent_id: string | null; depth: number; x0: number; y0: number; x1: number; y1: number }>`
    SELECT tile_id, parent_id, depth, ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = 'coordInfo' AND status IN ('pending', 'failed')
    ORDER BY run_tile_id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.tile_id,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    depth: r.depth,
    bbox: [r.x0, r.y0, r.x1, r.y1],
  }));
}
