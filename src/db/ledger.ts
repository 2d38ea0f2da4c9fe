import { storable } from '../efa/text/storable.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Relation } from '../relations/index.js';
import type { RunRef } from './merge.js';
import type { RelationCounts, UnitStats } from './run-record.js';
import type { Database } from './tables.js';
import type { UnitStatus } from './unit-status.js';
import type { BBox } from '../tiling/types.js';
import { textArrayLiteral } from './pg-array.js';

/**
 * The ledger of what a run did: its units (efa.run_tiles), what it rejected (efa.rejects), saw
 * (efa.run_seen_sets) and changed (efa.change_sets), besides the merge statement, which writes seen
 * and change sets with the rows they describe. Every count of a run's summary is read here, so a
 * resumed run reports the whole run. The runs' own rows are runs.ts; marking gone is deletion.ts.
 * What the next units are (pending tiles, due stops, pilot pins) is read in plan-reads.ts.
 */

export type { UnitStatus } from './unit-status.js';

export interface TileRecord {
  readonly operation: string;
  readonly tileId: string;
  readonly parentId?: string | undefined;
  readonly depth: number;
  readonly bbox?: BBox | undefined;
  /** What the unit is about where that is an object (a stop's ServingLines request: the stop id). */
  readonly subject?: string | undefined;
  /** CoordInfo: the types the tile's request asked for (a pilot sweep's stratum); undefined = every type of the job. */
  readonly types?: readonly string[] | undefined;
  readonly status: UnitStatus;
  readonly attempts: number;
  readonly hits: number;
  readonly durationMs: number;
  readonly error?: string | undefined;
}

/** Progress records of one run, written in the same transaction as the rows they produced. */
export async function recordTiles(db: Kysely<Database>, runId: string, tiles: readonly TileRecord[]): Promise<void> {
  if (tiles.length === 0) return;
  await tileRecordsInsert(runId, tiles).execute(db);
}

/**
 * recordTiles' statement, for a caller that runs it inside another (the batching writer: as a CTE of
 * the merge's ledger statement, one message less per transaction). Not for an empty list.
 */
export function tileRecordsInsert(runId: string, tiles: readonly TileRecord[]): RawBuilder<unknown> {
  const bboxText = tiles.map((t) => (t.bbox ? t.bbox.join(',') : null));
  return sql`
    INSERT INTO efa.run_tiles (run_id, operation, tile_id, parent_id, depth, bbox, subject, types, status, attempts, hits, duration_ms, error)
    SELECT ${runId}::bigint, op, tile_id, parent_id, depth,
           CASE WHEN bbox IS NULL THEN NULL ELSE ST_MakeEnvelope(
             split_part(bbox, ',', 1)::float8, split_part(bbox, ',', 2)::float8,
             split_part(bbox, ',', 3)::float8, split_part(bbox, ',', 4)::float8, 4326) END,
           subject, types::text[], status, attempts, hits, duration_ms, error
    FROM unnest(${tiles.map((t) => t.operation)}::text[], ${tiles.map((t) => t.tileId)}::text[],
                ${tiles.map((t) => t.parentId ?? null)}::text[], ${tiles.map((t) => t.depth)}::int[], ${bboxText}::text[],
                ${tiles.map((t) => t.subject ?? null)}::text[], ${tiles.map((t) => (t.types ? textArrayLiteral(t.types) : null))}::text[],
                ${tiles.map((t) => t.status)}::text[], ${tiles.map((t) => t.attempts)}::int[], ${tiles.map((t) => t.hits)}::int[],
                ${tiles.map((t) => Math.round(t.durationMs))}::int[], ${tiles.map((t) => t.error ?? null)}::text[])
      AS t(op, tile_id, parent_id, depth, bbox, subject, types, status, attempts, hits, duration_ms, error)
    ON CONFLICT (run_id, operation, tile_id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
      hits = EXCLUDED.hits, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error,
      fetched_at = now()`;
}

export interface RejectInput {
  readonly operation: string;
  readonly reason: string;
  readonly raw: unknown;
}

/**
 * What could not be normalised is kept with its reason, the unit it came from, and the record as
 * received, made storable (efa/text/storable.ts: a reject's raw is the answer's own text, which
 * parseEach has not cleaned; a lone surrogate in it failed the unit on jsonb).
 */
export async function insertRejects(db: Kysely<Database>, run: RunRef, unit: string, rejects: readonly RejectInput[]): Promise<number> {
  if (rejects.length === 0) return 0;
  await sql`
    INSERT INTO efa.rejects (run_id, source, unit, operation, reason, raw)
    SELECT ${run.runId}::bigint, ${run.source}, ${unit}, op, reason, raw::jsonb
    FROM unnest(${rejects.map((r) => r.operation)}::text[], ${rejects.map((r) => r.reason)}::text[],
                ${rejects.map((r) => JSON.stringify(storable(r.raw ?? null)))}::text[]) AS t(op, reason, raw)`.execute(db);
  return rejects.length;
}

/** Units of one operation already finished in a run (a resumed run does not fetch them again). */
export async function finishedUnits(db: Kysely<Database>, runId: string, operation: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('efa.run_tiles')
    .select('tile_id')
    .where('run_id', '=', runId)
    .where('operation', '=', operation)
    .where('status', 'in', ['done', 'incomplete', 'split', 'capped'])
    .execute();
  return new Set(rows.map((r) => r.tile_id));
}

export interface UnitOutcomes {
  readonly failed: readonly { operation: string; unit: string; error: string }[];
  /** Units whose answer was stored (done, incomplete or capped). */
  readonly stored: number;
  /** Units whose answer was stored but cannot be trusted to be whole (capped, incomplete). */
  readonly untrusted: number;
}

export async function unitOutcomes(db: Kysely<Database>, runId: string): Promise<UnitOutcomes> {
  const failed = await db
    .selectFrom('efa.run_tiles')
    .select(['operation', 'tile_id', 'error'])
    .where('run_id', '=', runId)
    .where('status', '=', 'failed')
    .orderBy('run_tile_id')
    .execute();
  const counts = await sql<{ stored: number; untrusted: number }>`
    SELECT count(*) FILTER (WHERE status IN ('done', 'incomplete', 'capped'))::int AS stored,
           count(*) FILTER (WHERE status IN ('incomplete', 'capped'))::int AS untrusted
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint`.execute(db);
  return {
    failed: failed.map((f) => ({ operation: f.operation, unit: f.tile_id, error: f.error ?? '' })),
    stored: counts.rows[0]?.stored ?? 0,
    untrusted: counts.rows[0]?.untrusted ?? 0,
  };
}

/** Units of a run per operation and outcome, whichever process ran them. */
export async function unitCounts(db: Kysely<Database>, runId: string): Promise<Record<string, UnitStats>> {
  const rows = await sql<{ operation: string; status: Exclude<UnitStatus, 'pending'>; n: number }>`
    SELECT operation, status, count(*)::int AS n FROM efa.run_tiles
    WHERE run_id = ${runId}::bigint AND status <> 'pending' GROUP BY operation, status ORDER BY operation`.execute(db);
  const units: Record<string, UnitStats> = {};
  for (const r of rows.rows) (units[r.operation] ??= { done: 0, incomplete: 0, split: 0, capped: 0, failed: 0 })[r.status] = r.n;
  return units;
}

/**
 * Units stored but not to be trusted whole: capped (with the hits they answered) and incomplete
 * (with why, where the unit recorded it), in the order they were recorded.
 */
export async function untrustedUnits(
  db: Kysely<Database>,
  runId: string,
): Promise<{ capped: { operation: string; unit: string; hits: number }[]; incomplete: { operation: string; unit: string; reason: string }[] }> {
  const rows = await db
    .selectFrom('efa.run_tiles')
    .select(['operation', 'tile_id', 'status', 'hits', 'error'])
    .where('run_id', '=', runId)
    .where('status', 'in', ['capped', 'incomplete'])
    .orderBy('run_tile_id')
    .execute();
  return {
    capped: rows.filter((r) => r.status === 'capped').map((r) => ({ operation: r.operation, unit: r.tile_id, hits: r.hits })),
    incomplete: rows
      .filter((r) => r.status === 'incomplete')
      .map((r) => ({ operation: r.operation, unit: r.tile_id, reason: r.error ?? 'some records of the answer were rejected or lay outside its box (see efa.rejects)' })),
  };
}

/** Records of a run that could not be normalised (efa.rejects). */
export async function rejectCount(db: Kysely<Database>, runId: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.rejects WHERE run_id = ${runId}::bigint`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** Whether this run saw a key of a relation. */
export async function seenInRun(db: Kysely<Database>, runId: string, relation: Relation, key: string): Promise<boolean> {
  const r = await sql<{ hit: boolean }>`
    SELECT EXISTS (SELECT 1 FROM efa.run_seen_sets WHERE run_id = ${runId}::bigint AND relation = ${relation} AND ${key} = ANY (keys)) AS hit`.execute(db);
  return r.rows[0]?.hit === true;
}

export async function seenCount(db: Kysely<Database>, runId: string, relation: Relation): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(DISTINCT key)::int AS n FROM efa.run_seen WHERE run_id = ${runId}::bigint AND relation = ${relation}`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** Keys a run saw per relation; a key two tiles both answered is in two sets: counted once. */
export async function seenCounts(db: Kysely<Database>, runId: string): Promise<SeenCounts> {
  const seen = await sql<{ relation: Relation; n: number }>`
    SELECT relation, count(DISTINCT key)::int AS n FROM efa.run_seen WHERE run_id = ${runId}::bigint GROUP BY relation`.execute(db);
  return Object.fromEntries(seen.rows.map((r) => [r.relation, r.n]));
}

export type SeenCounts = Partial<Record<Relation, number>>;

/** Rows inserted/updated/deleted/unchanged per relation, from the change log and what the run saw (`seen`: seenCounts, when the caller has it). */
export async function relationCounts(db: Kysely<Database>, runId: string, seenBy?: SeenCounts): Promise<RelationCounts> {
  const changes = await sql<{ relation: Relation; op: string; n: number }>`
    SELECT relation, op, sum(cardinality(keys))::int AS n FROM efa.change_sets WHERE run_id = ${runId}::bigint GROUP BY relation, op`.execute(db);
  const seen = seenBy ?? (await seenCounts(db, runId));
  const out: RelationCounts = {};
  const of = (r: Relation) => (out[r] ??= { inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
  for (const c of changes.rows) {
    const s = of(c.relation);
    if (c.op === 'insert') s.inserted = c.n;
    if (c.op === 'update') s.updated = c.n;
    if (c.op === 'delete') s.deleted = c.n;
  }
  for (const [relation, n] of Object.entries(seen) as [Relation, number][]) {
    const r = of(relation);
    r.unchanged = Math.max(0, n - r.inserted - r.updated);
  }
  return out;
}

/**
 * run_seen grows by every key every night; deletion needs this run's keys and "seen before in the
 * same scope", which a few recent runs answer. Older runs' keys of this job are dropped.
 */
export async function pruneSeen(db: Kysely<Database>, jobName: string, keepRuns = 7): Promise<void> {
  await sql`
    DELETE FROM efa.run_seen_sets s USING efa.runs r
    WHERE s.run_id = r.run_id AND r.job_name = ${jobName} AND r.status NOT IN ('running', 'stopped')
      AND r.run_id NOT IN (SELECT run_id FROM efa.runs WHERE job_name = ${jobName} ORDER BY run_id DESC LIMIT ${keepRuns})`.execute(db);
}

/**
 * Fresh statistics for the run's end: the ledger's own tables, which its counts and deletions read.
 * The entity tables' are analyzeMoved's.
 */
export async function analyzeLedger(db: Kysely<Database>): Promise<void> {
  await sql.raw('ANALYZE efa.run_seen_sets, efa.run_tiles').execute(db);
}

/**
 * Fresh statistics for the views and the next night: efa.pins and efa.stop_lines, only when the
 * run's change sets moved more than a tenth of the rows PostgreSQL last counted (autovacuum's own
 * threshold), or the table was never analysed: on an unchanged night of a million pins the sample
 * was 0.4 s of a 2.7 s finalisation, for the statistics it already had. (The server's own counters,
 * pg_stat_user_tables.n_mod_since_analyze, lag the writer's last commits by up to a second on
 * PostgreSQL and stay 0 on PGlite: the change sets are exact on both.) The run's end transaction
 * does not wait for it (its statements do not rest on the planner's guesses): on a server it runs on
 * a connection of its own meanwhile, 0.2-0.3 s of a 200,000-pin first night (docs/benchmarks.md).
 */
export async function analyzeMoved(db: Kysely<Database>, runId: string): Promise<void> {
  const moved = await sql<{ rel: string }>`
    SELECT c.relname AS rel
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'efa'
    LEFT JOIN (SELECT relation, sum(cardinality(keys)) AS n FROM efa.change_sets WHERE run_id = ${runId}::bigint GROUP BY relation) m ON m.relation = c.relname
    WHERE c.relname IN ('pins', 'stop_lines') AND (c.reltuples < 0 OR coalesce(m.n, 0) > 0.1 * c.reltuples + 50)`.execute(db);
  if (moved.rows.length > 0) await sql.raw(`ANALYZE ${moved.rows.map((r) => `efa.${r.rel}`).join(', ')}`).execute(db);
}
