import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.js';

export type RunStatus = 'running' | 'succeeded' | 'partial' | 'failed';

export interface TileRecord {
  readonly operation: string;
  readonly tileId: string;
  readonly parentId?: string | undefined;
  readonly depth: number;
  readonly bbox?: readonly [number, number, number, number] | undefined;
  readonly status: 'done' | 'split' | 'capped' | 'failed';
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
