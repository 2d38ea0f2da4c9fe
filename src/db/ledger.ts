import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { entities, type Relation, type RunScope } from '../entities/index.js';
import type { Tx } from './connect.js';
import type { RunRef } from './merge.js';
import { relationCountsSchema, runMetaSchema, type HeldDeletion, type RelationCounts, type RunMeta } from './run-record.js';
import type { Database } from './tables.js';

/**
 * The ledger: every query on efa.runs, efa.run_tiles, efa.run_seen_sets, efa.change_sets and
 * efa.rejects (besides the merge statement, which writes seen and change sets with the rows they
 * describe).
 * The deletion rules themselves are SQL functions (sql/004_sources.sql); this module calls them.
 */

export type RunStatus = 'running' | 'succeeded' | 'partial' | 'failed';
export type UnitStatus = 'pending' | 'done' | 'incomplete' | 'split' | 'capped' | 'failed';

export interface TileRecord {
  readonly operation: string;
  readonly tileId: string;
  readonly parentId?: string | undefined;
  readonly depth: number;
  readonly bbox?: readonly [number, number, number, number] | undefined;
  /** What the unit is about where that is an object (a stop's ServingLines request: the stop id). */
  readonly subject?: string | undefined;
  readonly status: UnitStatus;
  readonly attempts: number;
  readonly hits: number;
  readonly durationMs: number;
  readonly error?: string | undefined;
}

/** This process no longer holds the run: another process took it over. Nothing more may be committed. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  readonly exitCode = 1;
  constructor(readonly runId: string) {
    super(`run ${runId} was taken over by another process (its lock was lost); this process stops without committing more`);
  }
}

export interface OpenedRun extends RunRef {
  /** The fencing token: every commit of this process checks it still holds the run. */
  readonly lease: string;
  /** efa.runs.started_at: a run's one duration runs from here to its finished_at, resumes included. */
  readonly startedAt: Date;
}

export async function createRun(
  db: Kysely<Database>,
  run: { jobName: string; jobHash: string; scope: RunScope; options: unknown },
): Promise<OpenedRun> {
  const lease = randomUUID();
  const row = await db
    .insertInto('efa.runs')
    .values({
      job_name: run.jobName,
      job_hash: run.jobHash,
      source: run.scope.source,
      scope: JSON.stringify(run.scope),
      status: 'running',
      finished_at: null,
      heartbeat_at: new Date(),
      error: null,
      resumed_from: null,
      options: JSON.stringify(run.options),
      pid: process.pid,
      host: hostname(),
      lease,
    })
    .returning(['run_id', 'started_at'])
    .executeTakeFirstOrThrow();
  return { runId: String(row.run_id), source: run.scope.source, lease, startedAt: new Date(row.started_at) };
}

/** Takes over an interrupted run: a new lease, so a process still working on it can commit nothing more. */
export async function takeOverRun(db: Kysely<Database>, runId: string, source: string): Promise<OpenedRun> {
  const lease = randomUUID();
  const row = await db
    .updateTable('efa.runs')
    .set({ lease, pid: process.pid, host: hostname(), heartbeat_at: new Date() })
    .where('run_id', '=', runId)
    .returning('started_at')
    .executeTakeFirstOrThrow();
  return { runId, source, lease, startedAt: new Date(row.started_at) };
}

/**
 * The fence: inside a write transaction, before anything else, lock this run's row and check that
 * its lease is still ours. A process that lost its lock fails here instead of committing.
 */
export async function assertLease(tx: Tx, run: OpenedRun): Promise<void> {
  const r = await sql<{ lease: string | null }>`SELECT lease::text AS lease FROM efa.runs WHERE run_id = ${run.runId}::bigint FOR UPDATE`.execute(tx.kysely);
  if (r.rows[0]?.lease !== run.lease) throw new LeaseLostError(run.runId);
}

export async function finishRun(
  tx: Tx,
  run: OpenedRun,
  end: {
    status: Exclude<RunStatus, 'running'>;
    finishedAt: Date;
    requests: number;
    stats: RelationCounts;
    meta: RunMeta;
    messages: unknown;
    error?: string | undefined;
  },
): Promise<void> {
  await assertLease(tx, run);
  await tx.kysely
    .updateTable('efa.runs')
    .set({
      status: end.status,
      finished_at: end.finishedAt,
      heartbeat_at: end.finishedAt,
      requests: end.requests,
      stats: JSON.stringify(relationCountsSchema.parse(end.stats)),
      meta: JSON.stringify(runMetaSchema.parse(end.meta)),
      messages: JSON.stringify(end.messages),
      error: end.error ?? null,
    })
    .where('run_id', '=', run.runId)
    .execute();
}

/**
 * The run's one duration, stamped after everything it does (finalising transaction, pruning, view
 * refresh): efa.runs.finished_at, meta.durationS and meta.finaliseS move to the database's clock now,
 * so the record, the summary and the report show the whole run. Only while this process holds the
 * lease; returns the duration, or undefined when the run was taken over.
 */
export async function stampRunEnd(db: Kysely<Database>, run: OpenedRun, finaliseStartedAt: Date): Promise<{ durationS: number; finaliseS: number } | undefined> {
  const r = await sql<{ duration_s: number; finalise_s: number }>`
    WITH t AS (SELECT clock_timestamp() AS at)
    UPDATE efa.runs SET finished_at = t.at, heartbeat_at = t.at,
      meta = coalesce(meta, '{}'::jsonb)
        || jsonb_build_object('durationS', round(extract(epoch FROM t.at - started_at)::numeric, 1),
                              'finaliseS', round(greatest(0, extract(epoch FROM t.at - ${finaliseStartedAt.toISOString()}::timestamptz))::numeric, 1))
    FROM t
    WHERE run_id = ${run.runId}::bigint AND lease = ${run.lease}::uuid
    RETURNING round(extract(epoch FROM t.at - started_at)::numeric, 1)::float8 AS duration_s,
              round(greatest(0, extract(epoch FROM t.at - ${finaliseStartedAt.toISOString()}::timestamptz))::numeric, 1)::float8 AS finalise_s`.execute(db);
  const row = r.rows[0];
  return row ? { durationS: Number(row.duration_s), finaliseS: Number(row.finalise_s) } : undefined;
}

/** Closes a run that will not be resumed (its job changed, or --full). */
export async function abandonRun(db: Kysely<Database>, runId: string, why: string): Promise<void> {
  await db
    .updateTable('efa.runs')
    .set({ status: 'failed', finished_at: new Date(), error: `interrupted; not resumed because ${why}`, lease: null })
    .where('run_id', '=', runId)
    .execute();
}

export async function requestsSoFar(db: Kysely<Database>, runId: string): Promise<number> {
  const r = await db.selectFrom('efa.runs').select('requests').where('run_id', '=', runId).executeTakeFirstOrThrow();
  return r.requests;
}

/** Progress records of one run, written in the same transaction as the rows they produced. */
export async function recordTiles(db: Kysely<Database>, runId: string, tiles: readonly TileRecord[]): Promise<void> {
  if (tiles.length === 0) return;
  const bboxText = tiles.map((t) => (t.bbox ? t.bbox.join(',') : null));
  await sql`
    INSERT INTO efa.run_tiles (run_id, operation, tile_id, parent_id, depth, bbox, subject, status, attempts, hits, split, duration_ms, error)
    SELECT ${runId}::bigint, op, tile_id, parent_id, depth,
           CASE WHEN bbox IS NULL THEN NULL ELSE ST_MakeEnvelope(
             split_part(bbox, ',', 1)::float8, split_part(bbox, ',', 2)::float8,
             split_part(bbox, ',', 3)::float8, split_part(bbox, ',', 4)::float8, 4326) END,
           subject, status, attempts, hits, status = 'split', duration_ms, error
    FROM unnest(${tiles.map((t) => t.operation)}::text[], ${tiles.map((t) => t.tileId)}::text[],
                ${tiles.map((t) => t.parentId ?? null)}::text[], ${tiles.map((t) => t.depth)}::int[], ${bboxText}::text[],
                ${tiles.map((t) => t.subject ?? null)}::text[],
                ${tiles.map((t) => t.status)}::text[], ${tiles.map((t) => t.attempts)}::int[], ${tiles.map((t) => t.hits)}::int[],
                ${tiles.map((t) => Math.round(t.durationMs))}::int[], ${tiles.map((t) => t.error ?? null)}::text[])
      AS t(op, tile_id, parent_id, depth, bbox, subject, status, attempts, hits, duration_ms, error)
    ON CONFLICT (run_id, operation, tile_id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
      hits = EXCLUDED.hits, split = EXCLUDED.split, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error,
      fetched_at = now()`.execute(db);
}

export interface RejectInput {
  readonly operation: string;
  readonly reason: string;
  readonly raw: unknown;
}

/** What could not be normalised is kept with its reason, the unit it came from, and the record as received. */
export async function insertRejects(db: Kysely<Database>, run: RunRef, unit: string, rejects: readonly RejectInput[]): Promise<number> {
  if (rejects.length === 0) return 0;
  await sql`
    INSERT INTO efa.rejects (run_id, source, unit, operation, reason, raw)
    SELECT ${run.runId}::bigint, ${run.source}, ${unit}, op, reason, raw::jsonb
    FROM unnest(${rejects.map((r) => r.operation)}::text[], ${rejects.map((r) => r.reason)}::text[],
                ${rejects.map((r) => JSON.stringify(r.raw ?? null))}::text[]) AS t(op, reason, raw)`.execute(db);
  return rejects.length;
}

export interface UnfinishedRun {
  readonly runId: string;
  readonly jobHash: string;
  readonly source: string;
  readonly startedAt: Date;
}

/** The newest run of a job still marked running: its process died or lost its lock (we hold the job's lock now). */
export async function findUnfinishedRun(db: Kysely<Database>, jobName: string): Promise<UnfinishedRun | undefined> {
  const row = await db
    .selectFrom('efa.runs')
    .select(['run_id', 'job_hash', 'source', 'started_at'])
    .where('job_name', '=', jobName)
    .where('status', '=', 'running')
    .orderBy('run_id', 'desc')
    .executeTakeFirst();
  return row ? { runId: String(row.run_id), jobHash: row.job_hash, source: row.source, startedAt: row.started_at } : undefined;
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

/** CoordInfo tiles planned in a run and not yet fetched (or failed: a resume tries them again). */
export async function pendingTiles(
  db: Kysely<Database>,
  runId: string,
): Promise<{ id: string; parentId?: string; depth: number; bbox: [number, number, number, number]; known?: number }[]> {
  const rows = await sql<{ tile_id: string; parent_id: string | null; depth: number; hits: number; status: string; x0: number; y0: number; x1: number; y1: number }>`
    SELECT tile_id, parent_id, depth, hits, status, ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = 'coordInfo' AND status IN ('pending', 'failed')
    ORDER BY run_tile_id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.tile_id,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    depth: r.depth,
    bbox: [r.x0, r.y0, r.x1, r.y1],
    ...(r.status === 'pending' && r.hits > 0 ? { known: r.hits } : {}),
  }));
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

/** How many runs of this job came before (before `runId`, or all): the night number of the rolling ServingLines share. */
export async function nightNumber(db: Kysely<Database>, jobName: string, runId?: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.runs WHERE job_name = ${jobName} AND (${runId ?? null}::bigint IS NULL OR run_id < ${runId ?? null}::bigint)`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/**
 * Whether a stop's lines are due on a night: its lines were never fetched for this source, or it
 * falls in the night's rolling share `hash(stop) mod N = night mod N`, so every stop is refreshed
 * within N nights. One definition for the sweep and for `plan`.
 */
function stopLinesDue(stopId: RawBuilder<unknown>, source: string, q: { all: boolean; everyNights: number; night: number }): RawBuilder<unknown> {
  return sql`(${q.all}::boolean
    OR NOT EXISTS (SELECT 1 FROM efa.run_tiles t JOIN efa.runs r ON r.run_id = t.run_id
                   WHERE t.operation = 'servingLines' AND t.subject = ${stopId} AND t.status = 'done' AND r.source = ${source})
    OR mod(hashtext(${stopId})::bigint + 2147483648, ${q.everyNights}::bigint) = ${q.night % q.everyNights}::bigint)`;
}

/**
 * Stops of this run's source that it has seen and whose lines are due, a page at a time (a
 * million-pin region is never held in memory): stops new or changed in this run, and those
 * stopLinesDue names.
 */
export async function dueStopsPage(
  db: Kysely<Database>,
  run: RunRef,
  q: { all: boolean; everyNights: number; night: number; after: string; limit: number },
): Promise<string[]> {
  const page = await sql<{ id: string }>`
    SELECT p.id FROM efa.run_seen s JOIN efa.pins p ON p.source = s.source AND p.pin_key = s.key
    WHERE s.run_id = ${run.runId}::bigint AND s.relation = 'pins' AND p.type = 'STOP' AND p.id IS NOT NULL AND p.id > ${q.after}
      AND (p.changed_run = ${run.runId}::bigint OR ${stopLinesDue(sql.ref('p.id'), run.source, q)})
    ORDER BY p.id LIMIT ${q.limit}`.execute(db);
  return page.rows.map((r) => r.id);
}

/** Live stops of a source in a box, and how many of them stopLinesDue names: what `plan` budgets. */
export async function countDueStops(
  db: Kysely<Database>,
  source: string,
  bbox: readonly [number, number, number, number],
  q: { all: boolean; everyNights: number; night: number },
): Promise<{ known: number; due: number }> {
  const [x0, y0, x1, y1] = bbox;
  const r = await sql<{ known: number; due: number }>`
    SELECT count(*)::int AS known, count(*) FILTER (WHERE ${stopLinesDue(sql.ref('p.id'), source, q)})::int AS due
    FROM efa.pins p
    WHERE p.source = ${source} AND p.type = 'STOP' AND p.id IS NOT NULL AND p.deleted_at IS NULL
      AND p.geom && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326)`.execute(db);
  return { known: r.rows[0]?.known ?? 0, due: r.rows[0]?.due ?? 0 };
}

export interface GoneOutcome {
  /** Rows marked gone, per relation. */
  readonly marked: Partial<Record<Relation, number>>;
  /** Relations whose deletions the mass-deletion guard held. */
  readonly held: HeldDeletion[];
}

/** Gone stops take their stop-line pairs along, and a line is gone only once no live pair serves it. */
const deletionOrder: readonly Relation[] = ['pins', 'stop_lines', 'lines', 'notices', 'sharing_providers', 'operating_areas'];

/** Below this many rows a share of a relation is never held: a handful is not a mass deletion (a run that empties a relation is held at any size). */
export const guardFloor = 10;

export interface DeletionGuard {
  readonly maxGonePercent: number;
  /** --accept-deletions: mark what the run found gone, whatever the guard says. */
  readonly accept: boolean;
  /** The job whose earlier runs make up a rolling-refresh cycle. */
  readonly jobName: string;
  /**
   * Relations refreshed a share per night (stop_lines under servingLines.refreshEveryNights): how
   * many runs a cycle has. What the previous runs of the cycle marked counts with this run's, so an
   * answer that erodes a relation a few percent a night is held like one that takes it at once.
   */
  readonly cycleRuns?: Partial<Record<Relation, number>>;
}

/**
 * Whether the guard holds a relation's deletions: the run would leave no live row in scope (an
 * empty answer, at any size); or it would mark more than maxGonePercent of the live rows, counting
 * what the job's earlier runs of the same rolling-refresh cycle marked (`cycle`), above a handful.
 */
export function heldBy(
  guard: DeletionGuard,
  relation: Relation,
  counts: { wouldMark: number; liveInScope: number; markedEarlierInCycle: number; cycleRuns: number },
): HeldDeletion | undefined {
  const { wouldMark, liveInScope, markedEarlierInCycle, cycleRuns } = counts;
  if (guard.accept || wouldMark === 0) return undefined;
  const base = { relation, wouldMark, liveInScope, maxGonePercent: guard.maxGonePercent };
  if (wouldMark >= liveInScope) return { ...base, reason: 'empties' };
  const limit = guard.maxGonePercent / 100;
  if (wouldMark > guardFloor && wouldMark > limit * liveInScope) return { ...base, reason: 'share' };
  const cumulative = wouldMark + markedEarlierInCycle;
  if (cycleRuns > 1 && cumulative > guardFloor && cumulative > limit * (liveInScope + markedEarlierInCycle)) {
    return { ...base, reason: 'cycle', markedEarlierInCycle, cycleRuns };
  }
  return undefined;
}

/** What a held deletion means and what to do, for the log and the run's error: one wording. */
export function heldDeletionText(h: HeldDeletion): string {
  const why =
    h.reason === 'empties' ? `that is every live row in the job's scope: an answer that empties a relation is held at any size`
    : h.reason === 'cycle' ? `with the ${h.markedEarlierInCycle ?? 0} the job's previous ${(h.cycleRuns ?? 1) - 1} run(s) of its rolling refresh marked, more than maxGonePercent ${h.maxGonePercent} %`
    : `more than maxGonePercent ${h.maxGonePercent} %`;
  return `${h.relation}: this run would mark ${h.wouldMark} of ${h.liveInScope} live rows gone (${why}): none were marked`;
}

/**
 * The end of a run: for each relation the job sweeps, what the run looked for in its own scope and
 * did not find (efa.gone_<relation>, sql/010) is marked gone, unless the deletion guard holds it
 * (heldBy): then nothing of that relation is marked and the deletion is reported as held. Each mark
 * lands in efa.changes.
 *
 * Cost: the predicates join against the run's seen keys unnested once into a keyed, analysed
 * temporary table (efa.load_run_seen), so every step is linear in the rows of the source whatever
 * plan the planner picks (sql/010_linear_ledger.sql says why).
 */
export async function markGone(tx: Tx, run: RunRef, relations: readonly Relation[], guard: DeletionGuard): Promise<GoneOutcome> {
  const marked: Partial<Record<Relation, number>> = {};
  const held: HeldDeletion[] = [];
  await sql`CREATE TEMP TABLE IF NOT EXISTS efa_gone_keys (key text PRIMARY KEY)`.execute(tx.kysely);
  for (const relation of deletionOrder.filter((r) => relations.includes(r))) {
    const fn = sql.raw(`efa.gone_${relation}`);
    await sql`TRUNCATE efa_gone_keys`.execute(tx.kysely);
    await sql`INSERT INTO efa_gone_keys SELECT key FROM ${fn}(${run.runId}::bigint) ON CONFLICT DO NOTHING`.execute(tx.kysely);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa_gone_keys`.execute(tx.kysely);
    const wouldMark = count.rows[0]?.n ?? 0;
    if (wouldMark === 0) continue;
    if (!guard.accept) {
      const live = await sql<{ n: string }>`SELECT efa.live_in_scope(${run.runId}::bigint, ${relation})::text AS n`.execute(tx.kysely);
      const cycleRuns = guard.cycleRuns?.[relation] ?? 1;
      const hold = heldBy(guard, relation, {
        wouldMark,
        liveInScope: Number(live.rows[0]?.n ?? 0),
        markedEarlierInCycle: cycleRuns > 1 ? await markedByEarlierRuns(tx, guard.jobName, run.runId, relation, cycleRuns - 1) : 0,
        cycleRuns,
      });
      if (hold) {
        held.push(hold);
        continue;
      }
    }
    const { table, key, goneColumn } = entities[relation];
    const r = await sql<{ n: number }>`
      WITH gone AS (
        UPDATE ${sql.raw(table)} x SET ${sql.raw(goneColumn)} = now()
        FROM efa_gone_keys g WHERE x.source = ${run.source} AND x.${sql.raw(key)} = g.key AND x.${sql.raw(goneColumn)} IS NULL
        RETURNING x.${sql.raw(key)} AS k
      ), logged AS (
        INSERT INTO efa.change_sets (run_id, source, relation, op, detail, keys)
        SELECT ${run.runId}::bigint, ${run.source}, ${relation}, 'delete', ${relation === 'notices' ? 'ended' : null}, array_agg(k ORDER BY k)
        FROM gone HAVING count(*) > 0
      ) SELECT count(*)::int AS n FROM gone`.execute(tx.kysely);
    marked[relation] = r.rows[0]?.n ?? 0;
  }
  return { marked, held };
}

/** Rows of a relation the job's `runs` runs before this one marked gone (its rolling-refresh cycle so far). */
async function markedByEarlierRuns(tx: Tx, jobName: string, runId: string, relation: Relation, runs: number): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT coalesce(sum(cardinality(c.keys)), 0)::int AS n
    FROM efa.change_sets c
    WHERE c.relation = ${relation} AND c.op = 'delete'
      AND c.run_id IN (SELECT run_id FROM efa.runs WHERE job_name = ${jobName} AND run_id < ${runId}::bigint ORDER BY run_id DESC LIMIT ${runs})`.execute(tx.kysely);
  return r.rows[0]?.n ?? 0;
}

/** Rows inserted/updated/deleted/unchanged per relation, from the change log and what the run saw. */
export async function relationCounts(db: Kysely<Database>, runId: string): Promise<RelationCounts> {
  const changes = await sql<{ relation: Relation; op: string; n: number }>`
    SELECT relation, op, sum(cardinality(keys))::int AS n FROM efa.change_sets WHERE run_id = ${runId}::bigint GROUP BY relation, op`.execute(db);
  // A key two tiles both answered is in two sets: counted once.
  const seen = await sql<{ relation: Relation; n: number }>`
    SELECT relation, count(DISTINCT key)::int AS n FROM efa.run_seen WHERE run_id = ${runId}::bigint GROUP BY relation`.execute(db);
  const out: RelationCounts = {};
  const of = (r: Relation) => (out[r] ??= { inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
  for (const c of changes.rows) {
    const s = of(c.relation);
    if (c.op === 'insert') s.inserted = c.n;
    if (c.op === 'update') s.updated = c.n;
    if (c.op === 'delete') s.deleted = c.n;
  }
  for (const s of seen.rows) {
    const r = of(s.relation);
    r.unchanged = Math.max(0, s.n - r.inserted - r.updated);
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
    WHERE s.run_id = r.run_id AND r.job_name = ${jobName} AND r.status <> 'running'
      AND r.run_id NOT IN (SELECT run_id FROM efa.runs WHERE job_name = ${jobName} ORDER BY run_id DESC LIMIT ${keepRuns})`.execute(db);
}

/** Fresh statistics for the deletion check and the views: the run's seen keys themselves are analysed in efa.load_run_seen. */
export async function analyzeLedger(db: Kysely<Database>): Promise<void> {
  await sql`ANALYZE efa.pins, efa.run_seen_sets, efa.run_tiles, efa.stop_lines`.execute(db);
}
