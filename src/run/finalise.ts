import type { Tx } from '../db/connect.js';
import { analyzeLedger, analyzeMoved, pruneSeen, rejectCount, relationCounts, seenCount, seenCounts, unitCounts, unitOutcomes, untrustedUnits, type SeenCounts, type UnitOutcomes } from '../db/ledger.js';
import { heldDeletionText, markGone, releaseOfRun, type DeletionRelease, type GoneOutcome } from '../db/deletion.js';
import { refreshAnalystViews } from '../db/views.js';
import { remarkSilentCapped, silentCapWarning } from '../sweep/index.js';
import { pruneHistoryFor } from '../history/index.js';
import type { ServerMessage } from '../efa/index.js';
import { entities, RELATIONS, type Relation } from '../relations/index.js';
import { errorText } from '../errors.js';
import type { LoadedJob } from '../job/index.js';
import type { Ending, Outcome, RunContext } from './kind.js';
import type { EndStatus, RunSummary } from './summary.js';
import { redactDeep, redactText } from '../util/redact.js';
import type { SweepContext } from '../sweep/nightly/context.js';

/**
 * The end of a nightly run, in named steps. Before the run's end transaction: say what the sweeps
 * left (`prepare`). In it (`settle`): re-mark the tiles a silent cap made untrustworthy, read the
 * units' outcomes, mark gone what the run did not find (only for a run that did not fail, only in its
 * scope, held by the mass-deletion guard when too many), the status, the error, the counts. After
 * it (`tidy`): prune old seen sets and history past the job's keepDays, refresh the analyst views
 * that may have changed.
 */
export function nightlyEnd(rc: RunContext, ctx: SweepContext, failure: unknown, phases: NonNullable<RunSummary['phases']>): Outcome {
  const { db, log, job, run } = rc;
  const silentCap = ctx.capDetector.effectiveCap;
  const { requestsSent } = rc.jobClient.scheduler;
  const budgetSpent = requestsSent >= rc.requestBudget ? rc.requestBudget : undefined;
  let gone: GoneOutcome = { marked: {}, held: [], released: [], refused: [] };
  // Whether the run inserted, updated or marked gone any row: a run that did not may skip the views' refresh.
  let changedRows = true;
  // Pins the run saw, counted once in its end transaction (the report's floor reads it too).
  let seenPins: number | undefined;
  // The entity tables' statistics, taken while the end transaction runs; the views wait for them.
  let analysed: Promise<void> = Promise.resolve();
  return {
    failure,
    async prepare() {
      // A long finalisation (deletions over a large world) is then not taken for a hang.
      log.info(`run ${run.runId}: sweeps done after ${phases.sweepS} s; finalising (deletions, counts, run record)`);
      warnBudgetAndCap(rc, budgetSpent, silentCap);
      await analyzeLedger(db.kysely);
      analysed = analyzeMoved(db.kysely, run.runId);
      // Told where it is awaited (tidy); never an unhandled rejection meanwhile.
      analysed.catch(() => undefined);
    },
    async settle(tx) {
      await remarkSilentCapped(tx.kysely, run.runId, silentCap);
      const outcomes = await unitOutcomes(tx.kysely, run.runId);
      // What the run saw, counted once for the deletions' shortcut and the counts.
      const seen = await seenCounts(tx.kysely, run.runId);
      if (failure === undefined && outcomes.stored > 0) gone = await markGoneInScope(tx, rc, seen);
      const status = statusOf(failure, outcomes, gone);
      const relations = await relationCounts(tx.kysely, run.runId, seen);
      changedRows = Object.values(relations).some((c) => c.inserted + c.updated + c.deleted > 0);
      seenPins = seen.pins ?? 0;
      return endingOf(rc, ctx, tx, {
        status,
        outcomes,
        gone,
        error: runError(failure, outcomes, gone, budgetSpent, rc.secrets, ctx.stats.notes),
        relations,
      });
    },
    async tidy() {
      if (ctx.stats.vehiclesNotStored > 0) {
        log.info(`coordInfo: ${ctx.stats.vehiclesNotStored} sharing vehicle(s) in the answers were not stored as pins (vehicles are the snapshot sweep's time series: sweeps.vehicles)`);
      }
      warnDeletions(rc, gone);
      await pruneSeen(db.kysely, job.name);
      await pruneHistoryFor(db.kysely, job.history);
      await analysed;
      await refreshAnalystViews(db, { runChanged: changedRows });
    },
    async report() {
      const coord = job.sweeps.coord;
      return {
        ...(coord ? { coord: await coordFloor(rc, rc.jobClient.scheduler.stats().requestsByOperation['coordInfo'] ?? 0, coord.maxPerRequest, seenPins) } : {}),
        phases,
      };
    },
  };
}

function warnBudgetAndCap({ log }: RunContext, budgetSpent: number | undefined, silentCap: number | undefined): void {
  if (budgetSpent !== undefined) {
    log.warn(`the run's request budget of ${budgetSpent} requests ran out: the units left were not fetched (the run is partial). If the region really needs more, raise limits.requestBudget in the job.`);
  }
  if (silentCap !== undefined) {
    log.warn(silentCapWarning('coordInfo', silentCap));
  }
}

/**
 * What the guard did, loudly: each hold with what to do about it, each hold --accept-deletions
 * released (the guard was bypassed: an operator must see it in every night's log), and each one it
 * was asked to release and did not, with why.
 */
function warnDeletions({ log, run }: RunContext, gone: GoneOutcome): void {
  for (const h of gone.released) {
    log.warn(`--accept-deletions: the mass-deletion guard was bypassed: ${h.relation}: ${h.wouldMark} of ${h.liveInScope} live rows marked gone (it would have held them: ${h.reason ?? 'share'})`);
  }
  const refused = new Map(gone.refused.map((r) => [r.hold.relation, r.why]));
  for (const h of gone.held) {
    const why = refused.get(h.relation);
    const todo =
      why !== undefined ? `--accept-deletions did not release them: ${why}`
      : h.reason === 'empties' ? 'An answer that empties a relation is never released, not by --accept-deletions either: check the upstream; if the deployment really removed every one, take the sweep out of the job'
      : `If the deployment really removed them, run again with --accept-deletions ${run.runId} (releases what this run held, no more), or raise maxGonePercent in the job.`;
    log.warn(`${heldDeletionText(h)}. ${todo}`);
  }
}

/** The --accept-deletions of the run as the guard takes it: a run id is looked up in the end transaction. */
async function releaseFor(tx: Tx, { job, run, options }: RunContext): Promise<DeletionRelease> {
  const accept = options.acceptDeletions;
  if (accept === undefined || accept === false) return { kind: 'none' };
  if (accept === true) return { kind: 'any' };
  return releaseOfRun(tx, job.name, run.runId, accept.runId);
}

async function markGoneInScope(tx: Tx, rc: RunContext, seen: SeenCounts): Promise<GoneOutcome> {
  const { job, run } = rc;
  return markGone(tx, run, sweptRelations(job), {
    seen,
    maxGonePercent: job.maxGonePercent,
    release: await releaseFor(tx, rc),
    jobName: job.name,
    ...(job.sweeps.servingLines?.forStops ? { cycleRuns: { stop_lines: job.sweeps.servingLines.refreshEveryNights } } : {}),
  });
}

/**
 * The relations a job's run may mark gone: those it has a scope for (the entities decide), and
 * stop-line pairs wherever it looks for stops, since a stop found gone takes its pairs along.
 */
function sweptRelations(job: LoadedJob['job']): Relation[] {
  const looked = RELATIONS.filter((r) => entities[r].scopeOf(job) !== undefined);
  return looked.includes('pins') && !looked.includes('stop_lines') ? [...looked, 'stop_lines'] : looked;
}

/**
 * Capped and incomplete units were stored but may lack objects (nothing in them was marked gone):
 * like failed units and held deletions, they make a run partial, never a quiet success.
 */
function statusOf(failure: unknown, outcomes: UnitOutcomes, gone: GoneOutcome): EndStatus {
  return failure !== undefined ? 'failed'
    : outcomes.failed.length === 0 && gone.held.length === 0 && outcomes.untrusted === 0 ? 'succeeded'
    : outcomes.stored === 0 ? 'failed'
    : 'partial';
}

/**
 * The run's end as the ledger holds it: every count and list is read from efa.run_tiles and
 * efa.rejects, so a resumed run reports the whole run and tiles re-marked capped count as capped.
 * Only the sweeps' notes and the vehicles not stored are this process's own.
 */
async function endingOf(
  rc: RunContext,
  ctx: SweepContext,
  tx: Tx,
  end: { status: EndStatus; outcomes: UnitOutcomes; gone: GoneOutcome; error: string | undefined; relations: Ending['relations'] },
): Promise<Ending> {
  const { runId } = rc.run;
  const { capped, incomplete } = await untrustedUnits(tx.kysely, runId);
  // A reason this process saw and the unit's record does not hold (a CoordInfo tile's trust verdict).
  const seen = new Map(ctx.stats.incomplete.map((i) => [`${i.operation}|${i.unit}`, i.reason]));
  const { vehiclesNotStored } = ctx.stats;
  return {
    status: end.status,
    error: end.error,
    relations: end.relations,
    messages: redactDeep([...ctx.messages.values()], rc.secrets) as ServerMessage[],
    units: await unitCounts(tx.kysely, runId),
    rejects: await rejectCount(tx.kysely, runId),
    failures: end.outcomes.failed,
    capped,
    incomplete: incomplete.map((i) => ({ ...i, reason: seen.get(`${i.operation}|${i.unit}`) ?? i.reason })),
    heldDeletions: end.gone.held,
    ...(vehiclesNotStored > 0 ? { meta: { vehiclesNotStored } } : {}),
  };
}

function runError(
  failure: unknown,
  outcomes: UnitOutcomes,
  gone: GoneOutcome,
  budgetSpent: number | undefined,
  secrets: readonly string[],
  notes: readonly string[] = [],
): string | undefined {
  if (failure !== undefined) return redactText(errorText(failure), secrets);
  const parts = [
    ...notes,
    ...(outcomes.untrusted > 0 ? [`${outcomes.untrusted} unit(s) capped or incomplete: objects may be missing there, and nothing in them was marked gone (see efa.run_tiles)`] : []),
    ...(budgetSpent !== undefined ? [`request budget of ${budgetSpent} requests exhausted (limits.requestBudget)`] : []),
    ...(outcomes.failed.length > 0 ? [`${outcomes.failed.length} unit(s) failed after retries`] : []),
    ...gone.held.map((h) => `deletions held: ${h.relation} would lose ${h.wouldMark} of ${h.liveInScope} rows (maxGonePercent ${h.maxGonePercent}${h.reason && h.reason !== 'share' ? `; ${h.reason}` : ''})`),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** CoordInfo requests against the physical floor ceil(pins / maxPerRequest) of this region. */
async function coordFloor(rc: RunContext, requests: number, max: number, seenPins: number | undefined): Promise<NonNullable<RunSummary['coord']>> {
  const pins = seenPins ?? (await seenCount(rc.db.kysely, rc.run.runId, 'pins'));
  const floor = Math.max(1, Math.ceil(pins / max));
  return { requests, pins, floor, ratio: Math.round((requests / floor) * 100) / 100 };
}

