import { sql } from 'kysely';
import { entities, ordered, type Relation } from '../relations/index.js';
import type { Tx } from './connect.js';
import type { RunRef } from './merge.js';
import type { HeldDeletion } from './run-record.js';

/**
 * The end of a run's deletions: what it looked for in its own scope and did not find is marked gone
 * (the predicates are SQL functions, sql/004 and sql/010), unless the mass-deletion guard holds it.
 */

export interface GoneOutcome {
  /** Rows marked gone, per relation. */
  readonly marked: Partial<Record<Relation, number>>;
  /** Relations whose deletions the mass-deletion guard held. */
  readonly held: HeldDeletion[];
}

/** Gone stops take their stop-line pairs along, and a line is gone only once no live pair serves it (each relation's goneAfter). */
const deletionOrder: readonly Relation[] = ordered('goneAfter');

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
    if (relation === 'pins' && (await everyLivePinSeen(tx, run, guard.seen?.pins))) continue;
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
