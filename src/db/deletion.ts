import { sql } from 'kysely';
import { entities, ordered, qualifiedName, type Relation } from '../relations/index.js';
import type { Tx } from './connect.js';
import type { RunRef } from './merge.js';
import { readRunMeta, type HeldDeletion } from './run-record.js';

/**
 * The end of a run's deletions: what it looked for in its own scope and did not find is marked gone
 * (the predicates are SQL functions, sql/004 and sql/010), unless the mass-deletion guard holds it.
 */

export interface GoneOutcome {
  /** Rows marked gone, per relation. */
  readonly marked: Partial<Record<Relation, number>>;
  /** Relations whose deletions the mass-deletion guard held. */
  readonly held: HeldDeletion[];
  /** Holds `--accept-deletions` released: marked gone although the guard would have held them (warned loudly). */
  readonly released: HeldDeletion[];
  /** Holds an --accept-deletions did not release, and why (an emptied relation, a region that answered nothing, another run's count). */
  readonly refused: { readonly hold: HeldDeletion; readonly why: string }[];
}

/**
 * What `--accept-deletions` releases. `run`: exactly what one checked run held (each relation it held,
 * up to the count it held), only while that run is the job's last finished one, so an option left in
 * a CronJob releases no later night. `any`: the deprecated bare flag, any night's `share` and
 * `cycle` holds. Neither ever releases an answer that empties a relation, nor a night whose region
 * answered nothing: that is what a lying or broken upstream looks like.
 */
export type DeletionRelease =
  | { readonly kind: 'none' }
  | { readonly kind: 'any' }
  | { readonly kind: 'run'; readonly runId: string; readonly held: readonly HeldDeletion[] | undefined; readonly notLatest?: string };

/** Gone stops take their stop-line pairs along, and a line is gone only once no live pair serves it (each relation's goneAfter). */
const deletionOrder: readonly Relation[] = ordered('goneAfter');

/** Below this many rows a share of a relation is never held: a handful is not a mass deletion (a run that empties a relation is held at any size). */
export const guardFloor = 10;

export interface DeletionGuard {
  readonly maxGonePercent: number;
  /** --accept-deletions: which holds may be released (releaseOf decides for each). */
  readonly release: DeletionRelease;
  /** The job whose earlier runs make up a rolling-refresh cycle. */
  readonly jobName: string;
  /**
   * Relations refreshed a share per night (stop_lines under servingLines.refreshEveryNights): how
   * many runs a cycle has. What the previous runs of the cycle marked counts with this run's, so an
   * answer that erodes a relation a few percent a night is held like one that takes it at once.
   */
  readonly cycleRuns?: Partial<Record<Relation, number>>;
  /** Keys the run saw per relation (seenCounts), when the caller has them: lets an unchanged night skip the pins' set difference. */
  readonly seen?: Partial<Record<Relation, number>>;
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
  if (wouldMark === 0) return undefined;
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

/**
 * Whether `--accept-deletions` releases a hold: undefined when it does, else why not (for the log).
 * `answeredNothing`: the run saw no object of any relation.
 */
export function refusalOf(release: DeletionRelease, hold: HeldDeletion, answeredNothing: boolean): string | undefined {
  if (release.kind === 'none') return 'no --accept-deletions';
  if (hold.reason === 'empties') return 'an answer that empties a relation is never released by --accept-deletions';
  if (answeredNothing) return 'the region answered no object at all this run: --accept-deletions never releases such a night';
  if (release.kind === 'any') return undefined;
  if (release.notLatest !== undefined) return release.notLatest;
  const checked = release.held?.find((h) => h.relation === hold.relation);
  if (checked === undefined) return `run ${release.runId} held no ${hold.relation} deletions`;
  if (hold.wouldMark > checked.wouldMark) return `run ${release.runId} held ${checked.wouldMark}, this run would mark ${hold.wouldMark}: more than was checked`;
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
  const released: HeldDeletion[] = [];
  const refused: GoneOutcome['refused'] = [];
  // Nothing seen at all: every relation empties, the shape of an upstream that lies or broke.
  const answeredNothing = guard.seen !== undefined && Object.values(guard.seen).every((n) => !n);
  await sql`CREATE TEMP TABLE IF NOT EXISTS efa_gone_keys (key text PRIMARY KEY)`.execute(tx.kysely);
  for (const relation of deletionOrder.filter((r) => relations.includes(r))) {
    if (relation === 'pins' && (await everyLivePinSeen(tx, run, guard.seen?.pins))) continue;
    const fn = sql.raw(`efa.gone_${relation}`);
    await sql`TRUNCATE efa_gone_keys`.execute(tx.kysely);
    await sql`INSERT INTO efa_gone_keys SELECT key FROM ${fn}(${run.runId}::bigint) ON CONFLICT DO NOTHING`.execute(tx.kysely);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa_gone_keys`.execute(tx.kysely);
    const wouldMark = count.rows[0]?.n ?? 0;
    if (wouldMark === 0) continue;
    const live = await sql<{ n: string }>`SELECT efa.live_in_scope(${run.runId}::bigint, ${relation})::text AS n`.execute(tx.kysely);
    const cycleRuns = guard.cycleRuns?.[relation] ?? 1;
    const hold = heldBy(guard, relation, {
      wouldMark,
      liveInScope: Number(live.rows[0]?.n ?? 0),
      markedEarlierInCycle: cycleRuns > 1 ? await markedByEarlierRuns(tx, guard.jobName, run.runId, relation, cycleRuns - 1) : 0,
      cycleRuns,
    });
    if (hold) {
      const why = refusalOf(guard.release, hold, answeredNothing);
      if (why !== undefined) {
        held.push(hold);
        if (guard.release.kind !== 'none') refused.push({ hold, why });
        continue;
      }
      released.push(hold);
    }
    const { table, key, goneColumn } = entities[relation];
    const r = await sql<{ n: number }>`
      WITH gone AS (
        UPDATE ${sql.raw(qualifiedName(table))} x SET ${sql.raw(goneColumn)} = now()
        FROM efa_gone_keys g WHERE x.source = ${run.source} AND x.${sql.raw(key)} = g.key AND x.${sql.raw(goneColumn)} IS NULL
        RETURNING x.${sql.raw(key)} AS k
      ), logged AS (
        INSERT INTO efa.change_sets (run_id, source, relation, op, detail, keys)
        SELECT ${run.runId}::bigint, ${run.source}, ${relation}, 'delete', ${relation === 'notices' ? 'ended' : null}, array_agg(k ORDER BY k)
        FROM gone HAVING count(*) > 0
      ) SELECT count(*)::int AS n FROM gone`.execute(tx.kysely);
    marked[relation] = r.rows[0]?.n ?? 0;
  }
  return { marked, held, released, refused };
}

/**
 * Whether the run saw as many keys as its source has live pins stored up to it: then no such pin can
 * be unseen, and efa.gone_pins (a set difference of every live key against every seen key, 1.5 s at a
 * million pins) is not run. Each key the run saw is a pin it wrote, live and stored by then (first_run
 * at most the run); one another job marked gone since, or first stored later, only makes the count
 * of live pins smaller, which can skip a deletion for a night but never mark a row wrongly.
 */
async function everyLivePinSeen(tx: Tx, run: RunRef, seen: number | undefined): Promise<boolean> {
  if (seen === undefined) return false;
  const r = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM efa.pins WHERE source = ${run.source} AND deleted_at IS NULL AND first_run <= ${run.runId}::bigint`.execute(tx.kysely);
  return Number(r.rows[0]?.n ?? 0) <= seen;
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

/**
 * `--accept-deletions <run id>` made concrete inside the run's end transaction: what that run held,
 * if it is a run of this job and still the job's last finished run before this one. A later finished
 * run (the one that released it, or any other night) means its holds are settled or stale, and an
 * option left in a CronJob then releases nothing (notLatest says why).
 */
export async function releaseOfRun(tx: Tx, jobName: string, thisRunId: string, acceptedRunId: string): Promise<DeletionRelease> {
  const base = { kind: 'run' as const, runId: acceptedRunId };
  const accepted = await sql<{ job_name: string; meta: unknown; stats: unknown }>`
    SELECT job_name, meta, stats FROM efa.runs WHERE run_id = ${acceptedRunId}::bigint`.execute(tx.kysely);
  const row = accepted.rows[0];
  if (row === undefined) return { ...base, held: undefined, notLatest: `there is no run ${acceptedRunId}` };
  if (row.job_name !== jobName) return { ...base, held: undefined, notLatest: `run ${acceptedRunId} is a run of job ${row.job_name}, not ${jobName}` };
  const last = await sql<{ run_id: string }>`
    SELECT run_id::text AS run_id FROM efa.runs
    WHERE job_name = ${jobName} AND run_id < ${thisRunId}::bigint AND status IN ('succeeded', 'partial')
    ORDER BY run_id DESC LIMIT 1`.execute(tx.kysely);
  const lastId = last.rows[0]?.run_id;
  const held = readRunMeta(row.meta, row.stats)?.heldDeletions ?? [];
  if (lastId !== acceptedRunId) {
    return { ...base, held, notLatest: `run ${acceptedRunId} is not job ${jobName}'s last finished run (${lastId ?? 'none'} is): what it held was settled or is stale` };
  }
  return { ...base, held };
}
