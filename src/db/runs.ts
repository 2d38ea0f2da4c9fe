import { ExitCode, type Terminal } from '../errors.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { RunScope } from '../relations/index.js';
import type { Tx } from './connect.js';
import type { RunRef } from './merge.js';
import { relationCountsSchema, runMetaSchema, type RelationCounts, type RunMeta } from './run-record.js';
import type { Database } from './tables.js';

/**
 * The runs' own rows (efa.runs): a run opened, taken over, fenced by its lease, finished, stamped,
 * abandoned. What a run did is in the rest of the ledger (ledger.ts, deletion.ts).
 */

/**
 * `stopped`: a SIGTERM or SIGINT ended the process; like a `running` run a crash left behind, the next
 * run of the job resumes it (findUnfinishedRun).
 */
export type RunStatus = 'running' | 'succeeded' | 'partial' | 'failed' | 'stopped';
/** The statuses of a run that the next run of its job resumes. */
export const RESUMABLE_STATUSES = ['running', 'stopped'] as const;
/** This process no longer holds the run: another process took it over. Nothing more may be committed. */
export class LeaseLostError extends Error implements Terminal {
  override name = 'LeaseLostError';
  readonly exitCode = ExitCode.failed;
  readonly terminal = true;
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
  run: { jobName: string; jobHash: string; scope: RunScope; options: unknown; timeZone?: string; startedSecondsAgo?: number },
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
      time_zone: run.timeZone ?? null,
      // What the user waited for before the run opened (the process's start, the database's opening,
      // migrations: src/cli/run.ts), counted back from the database's own clock, so a client clock
      // that differs from the server's does not enter durationS.
      ...(run.startedSecondsAgo === undefined ? {} : { started_at: sql<Date>`clock_timestamp() - make_interval(secs => ${run.startedSecondsAgo})` }),
    })
    .returning(['run_id', 'started_at'])
    .executeTakeFirstOrThrow();
  return { runId: String(row.run_id), source: run.scope.source, lease, startedAt: new Date(row.started_at) };
}

/**
 * Takes over an interrupted run: a new lease, so a process still working on it can commit nothing more.
 * A `stopped` run is `running` again, its stop's end and message cleared.
 */
export async function takeOverRun(db: Kysely<Database>, runId: string, source: string): Promise<OpenedRun> {
  const lease = randomUUID();
  const row = await db
    .updateTable('efa.runs')
    .set({ lease, pid: process.pid, host: hostname(), heartbeat_at: new Date(), status: 'running', finished_at: null, error: null })
    .where('run_id', '=', runId)
    .returning('started_at')
    .executeTakeFirstOrThrow();
  return { runId, source, lease, startedAt: new Date(row.started_at) };
}

/**
 * The fence and the lease's renewal: inside a write transaction, before anything else, lock this
 * run's row, check that its lease is still ours, and stamp heartbeat_at (the run's last sign of
 * life, renewed with every commit). A process that lost its lock fails here instead of committing,
 * and its stamp is rolled back with the rest.
 *
 * The run's writer (src/db/batching-writer.ts) sends this statement in the message that begins its
 * transaction (leaseStatement, checkLease). `asyncCommit` (that writer on a PostgreSQL server) also
 * turns synchronous_commit off for this transaction alone, in the same statement (no round trip of
 * its own): its commit returns without waiting for the WAL flush. Should the server crash, it loses at
 * most its last few such commits (wal_writer_delay), each whole: a tile's rows go with the tile's
 * record in the ledger, so the resumed run finds the tile pending and asks it again. A crash of this
 * process loses none of them. Nothing is reported from them: the run's end (finishRun) commits
 * synchronously, which flushes every commit before it.
 */
export async function assertLease(tx: Tx, run: OpenedRun): Promise<void> {
  const r = await sql.raw<LeaseRow>(leaseStatement(run)).execute(tx.kysely);
  checkLease(r.rows, run);
}

type LeaseRow = { readonly lease?: unknown };

/**
 * assertLease's statement as text without parameters, so that the run's writer sends it in the one
 * message that opens its transaction (Db.transaction's `opening`): one round trip instead of two
 * per transaction. The run id is the only value in it, and only ever digits (a bigint's text).
 */
export function leaseStatement(run: OpenedRun, o: { readonly asyncCommit?: boolean } = {}): string {
  if (!/^\d{1,19}$/.test(run.runId)) throw new TypeError(`run id ${JSON.stringify(run.runId)} is not a bigint`);
  const commit = o.asyncCommit === true ? `, set_config('synchronous_commit', 'off', true) AS commit_mode` : '';
  return `UPDATE efa.runs SET heartbeat_at = now() WHERE run_id = ${run.runId} RETURNING lease::text AS lease${commit}`;
}

/** Throws LeaseLostError unless leaseStatement's rows hold this process's lease. */
export function checkLease(rows: readonly LeaseRow[], run: OpenedRun): void {
  if (rows[0]?.lease !== run.lease) throw new LeaseLostError(run.runId);
}

export async function finishRun(
  tx: Tx,
  run: OpenedRun,
  end: {
    status: Exclude<RunStatus, 'running' | 'stopped'>;
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

/** Closes a run that will not be resumed (its job changed, or --full): failed, saying why. */
export async function abandonRun(db: Kysely<Database>, runId: string, why: string, was: RunStatus = 'running'): Promise<void> {
  await db
    .updateTable('efa.runs')
    // A stopped run ended when it stopped, a crashed one at its last sign of life: closing it later does not lengthen it.
    .set({ status: 'failed', finished_at: sql<Date>`coalesce(finished_at, heartbeat_at, now())`, error: `${was === 'stopped' ? 'stopped' : 'interrupted'}; not resumed because ${why}`, lease: null })
    .where('run_id', '=', runId)
    .execute();
}

/**
 * Records that a signal stopped the run: status `stopped` (resumable), the requests sent so far and
 * the stop's end, on the database's clock. Only while this process holds the lease and the run is
 * still running; returns the run's duration so far in seconds, or undefined when nothing was recorded.
 */
export async function recordStopped(db: Kysely<Database>, run: OpenedRun, end: { requests: number; error: string }): Promise<number | undefined> {
  const r = await sql<{ duration_s: number }>`
    UPDATE efa.runs SET status = 'stopped', requests = ${end.requests}, error = ${end.error},
      finished_at = clock_timestamp(), heartbeat_at = clock_timestamp()
    WHERE run_id = ${run.runId}::bigint AND lease = ${run.lease}::uuid AND status = 'running'
    RETURNING round(extract(epoch FROM clock_timestamp() - started_at)::numeric, 1)::float8 AS duration_s`.execute(db);
  const row = r.rows[0];
  return row ? Number(row.duration_s) : undefined;
}

/**
 * Raises efa.runs.requests to `requests` ahead of sending them (never lowers it), while this process
 * holds the run: a process killed mid-run leaves a count no lower than what the upstream received.
 */
export async function reserveRequests(db: Kysely<Database>, run: OpenedRun, requests: number): Promise<void> {
  await sql`UPDATE efa.runs SET requests = greatest(requests, ${requests}::int)
    WHERE run_id = ${run.runId}::bigint AND lease = ${run.lease}::uuid AND status = 'running'`.execute(db);
}

export async function requestsSoFar(db: Kysely<Database>, runId: string): Promise<number> {
  const r = await db.selectFrom('efa.runs').select('requests').where('run_id', '=', runId).executeTakeFirstOrThrow();
  return r.requests;
}

export interface UnfinishedRun {
  readonly runId: string;
  /** `running` (its process died or lost its lock) or `stopped` (a signal ended it). */
  readonly status: RunStatus;
  readonly requests: number;
  readonly jobHash: string;
  readonly source: string;
  readonly startedAt: Date;
}

/**
 * The newest run of a job left to resume: marked running (its process died or lost its lock; we hold
 * the job's lock now) or stopped by a signal.
 */
export async function findUnfinishedRun(db: Kysely<Database>, jobName: string): Promise<UnfinishedRun | undefined> {
  const row = await db
    .selectFrom('efa.runs')
    .select(['run_id', 'status', 'requests', 'job_hash', 'source', 'started_at'])
    .where('job_name', '=', jobName)
    .where('status', 'in', RESUMABLE_STATUSES)
    .orderBy('run_id', 'desc')
    .executeTakeFirst();
  return row
    ? { runId: String(row.run_id), status: row.status, requests: row.requests, jobHash: row.job_hash, source: row.source, startedAt: row.started_at }
    : undefined;
}

/** How many runs of this job came before (before `runId`, or all): the night number of the rolling ServingLines share. */
export async function nightNumber(db: Kysely<Database>, jobName: string, runId?: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.runs WHERE job_name = ${jobName} AND (${runId ?? null}::bigint IS NULL OR run_id < ${runId ?? null}::bigint)`.execute(db);
  return r.rows[0]?.n ?? 0;
}
