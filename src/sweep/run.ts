import { pruneHistoryFor } from '../history/index.js';
import type { Db } from '../db/connect.js';
import {
  abandonRun,
  analyzeLedger,
  createRun,
  findUnfinishedRun,
  finishedUnits,
  finishRun,
  LeaseLostError,
  heldDeletionText,
  markGone,
  pendingTiles,
  pruneSeen,
  recordTiles,
  relationCounts,
  requestsSoFar,
  seenCount,
  stampRunEnd,
  takeOverRun,
  unitOutcomes,
  type GoneOutcome,
  type OpenedRun,
  type UnitOutcomes,
  type RunStatus,
} from '../db/ledger.js';
import { knownStopCount } from '../db/known.js';
import { migrate } from '../db/migrate.js';
import type { RelationCounts, RunMeta, SnapshotMeta } from '../db/run-record.js';
import { refreshAnalystViews } from '../db/views.js';
import type { DialectName } from '../efa/dialects/index.js';
import type { ServerMessage } from '../efa/index.js';
import { assertUpstreamUsable, probeUpstream } from '../efa/probe.js';
import { entities, RELATIONS, runScope, sourceOf, type Relation } from '../entities/index.js';
import { errorText, ExitCode, isFatal, isStatementTimeout, RunStoppedError } from '../errors.js';
import type { SchedulerStats } from '../http/index.js';
import type { RequestScheduler, Transport } from '../http/types.js';
import { isSnapshotJob, resolveHeaders, validateJob, type LoadedJob } from '../job/index.js';
import { remarkSilentCapped } from '../harvest/index.js';
import { runSnapshot } from '../snapshot/run.js';
import { createCapDetector, createSplitMemory, regionBBox, type Tile } from '../tiling/index.js';
import { failpoint } from '../util/failpoint.js';
import type { Logger } from '../util/log.js';
import { collectSecrets, redactDeep, redactText } from '../util/redact.js';
import { sweepAddInfo } from './add-info.js';
import { createJobClient, dialectInUse, type JobClient, type RateHistory } from './client.js';
import { createBatchingWriter, type SweepContext } from './context.js';
import { pendingRecord, sweepCoord } from './coord.js';
import { sweepOpArea } from './op-area.js';
import { planCoordTiles, planRun, radialCircleCount } from './plan.js';
import { Progress } from './progress.js';
import { sweepServingLines } from './serving-lines.js';
import { RunStats } from './stats.js';
import { sweepStopFinder } from './stop-finder.js';

export interface RunJobOptions {
  readonly loaded: LoadedJob;
  readonly db: Db;
  readonly log: Logger;
  readonly baseUrl?: string | undefined;
  readonly requestsPerSecond?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly progress?: 'bar' | 'lines' | 'off';
  /** The run date, YYYY-MM-DD (default: today, UTC). */
  readonly today?: string;
  readonly transport?: Transport;
  /** Overrides the job's dialect (`--dialect`). */
  readonly dialect?: DialectName | undefined;
  /** Ignore incremental state: plan tiles from scratch, refetch every stop's lines, never resume. */
  readonly full?: boolean;
  /** Mark gone what this run found gone even past the job's maxGonePercent (`--accept-deletions`). */
  readonly acceptDeletions?: boolean;
  readonly signal?: AbortSignal;
  /** Snapshot jobs: the snapshot time (default: now). */
  readonly takenAt?: Date;
}

export interface RunSummary {
  readonly runId: string;
  readonly job: string;
  /** The deployment the job harvests: every row the run wrote belongs to it. */
  readonly source: string;
  /** The response dialect the run read (for `auto`, the one detected). */
  readonly dialect: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly exitCode: number;
  /** This run continued one that had been interrupted. */
  readonly resumed: boolean;
  readonly durationS: number;
  /** Of durationS, the seconds after the last request: deletions, counts, the run record, the views. */
  readonly finaliseS?: number;
  readonly requests: number;
  readonly requestsByOperation: Readonly<Record<string, number>>;
  readonly retries: number;
  /** How the adaptive rate moved (the detail is at debug level: this is its summary). */
  readonly rate?: RateHistory;
  /** Rows inserted/updated/deleted/unchanged per relation. */
  readonly relations: RelationCounts;
  /** As `relations`, plus `_units` and `_rejects` (the shape of 0.1's --json, kept for its readers). */
  readonly stats: Record<string, unknown>;
  readonly units: RunMeta['units'];
  readonly rejects: number;
  readonly coord?: { readonly requests: number; readonly pins: number; readonly floor: number; readonly ratio: number };
  readonly failures: readonly { operation: string; unit: string; error: string }[];
  readonly capped: readonly { operation: string; unit: string; hits: number }[];
  /** Deletions the mass-deletion guard held (the run is partial). */
  readonly heldDeletions: RunMeta['heldDeletions'];
  readonly messages: readonly ServerMessage[];
  readonly db: string;
  readonly error?: string;
  /** Snapshot jobs: what each snapshot took (rows, requests against the floor, gaps). */
  readonly snapshots?: readonly SnapshotMeta[];
  /**
   * Where a sweep run's time went before `finaliseS`, in seconds: `sweepS` from the run's start to its
   * last unit (requests, with the load overlapped), `loadS` the writer's time in its transactions within it.
   */
  readonly phases?: { readonly sweepS: number; readonly loadS: number };
}

/** The job as it runs: CLI overrides applied and validated like the file itself. */
function effectiveJob(opts: RunJobOptions): LoadedJob['job'] {
  const { job } = opts.loaded;
  return validateJob(
    {
      ...job,
      baseUrl: opts.baseUrl ?? job.baseUrl,
      dialect: opts.dialect ?? job.dialect,
      rateLimit: {
        ...job.rateLimit,
        requestsPerSecond: opts.requestsPerSecond ?? job.rateLimit.requestsPerSecond,
        concurrency: opts.concurrency ?? job.rateLimit.concurrency,
      },
    },
    'options',
  );
}

const exitCodes = { succeeded: ExitCode.succeeded, partial: ExitCode.partial, failed: ExitCode.failed } as const;

/**
 * A crashed run of the same job is resumed when the job is unchanged (taking over its lease, so a
 * process that lost its lock but still works on it commits nothing more); otherwise it is closed
 * and a fresh run starts, with its scope recorded before anything is swept.
 */
async function openRun(opts: RunJobOptions, job: LoadedJob['job'], full: boolean, secrets: readonly string[]): Promise<{ run: OpenedRun; resumed: boolean }> {
  const { db, log } = opts;
  const unfinished = await findUnfinishedRun(db.kysely, job.name);
  // A snapshot is a moment: one interrupted minutes ago is not continued now, it is closed.
  const resumable = !full && !isSnapshotJob(job);
  if (unfinished && unfinished.jobHash === opts.loaded.hash && resumable) {
    log.info(`resuming run ${unfinished.runId} of job ${job.name} (started ${unfinished.startedAt.toISOString()}, interrupted)`);
    return { run: await takeOverRun(db.kysely, unfinished.runId, unfinished.source), resumed: true };
  }
  if (unfinished) {
    const why = full ? '--full was given' : isSnapshotJob(job) ? 'a snapshot is not resumed' : 'the job changed since it started';
    log.warn(`run ${unfinished.runId} of job ${job.name} was interrupted and cannot be resumed (${why}); starting a fresh run`);
    await abandonRun(db.kysely, unfinished.runId, why);
  }
  // The job as run, with every credential removed: efa.runs is read by analysts.
  const options = redactDeep({ ...job, file: opts.loaded.file }, secrets);
  const run = await createRun(db.kysely, { jobName: job.name, jobHash: opts.loaded.hash, scope: runScope(job, opts.loaded.region), options });
  return { run, resumed: false };
}

/** One run of a job: job -> tiles -> requests -> records -> rows -> ledger -> run record. */
export async function runJob(opts: RunJobOptions): Promise<RunSummary> {
  const job = effectiveJob(opts);
  const { db, log } = opts;
  const full = opts.full ?? false;
  await migrate(db);
  // Every credential the configuration holds, in every form it may be echoed: redacted from
  // everything the run stores or prints.
  const headers = resolveHeaders(job);
  const secrets = collectSecrets({ urls: [job.baseUrl], headers, secretNames: Object.keys(headers) });
  // Refused before a request is sent, whatever the budget: a RADIAL sweep over a continent (exit 2).
  if (job.sweeps.opArea?.mode === 'RADIAL') radialCircleCount(opts.loaded.region);
  const planned = await plannedRequests(db, sourceOf(job), job, opts.loaded.region);
  const requestBudget = job.limits.requestBudget ?? Math.max(20_000, 10 * planned);
  // Aborted when the job lock is lost mid-run: the process stops sending at once (a second run may
  // be taking over and sending at the full rate) and leaves the run to be resumed.
  const lockLost = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, lockLost.signal]) : lockLost.signal;
  const jobClient = createJobClient(job, { log, transport: opts.transport, signal, requestBudget });
  // Fail fast: a wrong base URL or path, a refused credential, an unknown host or another dialect
  // is a configuration error (exit 2) before anything is planned, not a night of failed tiles.
  // Through the run's own scheduler and transport: the probe keeps to its rate, budget and limits,
  // and its requests are counted under their own name (requestsByOperation.probe), so the run's
  // total is the sum of its operations and the CoordInfo count is the tiling's own.
  assertUpstreamUsable(await probeUpstream({ job, region: opts.loaded.region }, { scheduler: countedAs(jobClient.scheduler, PROBE_OPERATION), transport: jobClient.transport }));
  const lock = await db.lockJob(job.name);
  try {
    const { run, resumed } = await openRun(opts, job, full, secrets);
    await lock.holds(run.runId);
    const stopSending = (): void => lockLost.abort(new LockLostError(run.runId));
    if (lock.lost.aborted) stopSending();
    else lock.lost.addEventListener('abort', stopSending, { once: true });
    log.info(`run ${run.runId} of job ${job.name} ${resumed ? 'resumed' : 'started'} (source ${run.source})`, { baseUrl: redactText(job.baseUrl, secrets), db: db.displayUrl });
    if (isSnapshotJob(job)) return await runSnapshot({ db, log, job, loaded: opts.loaded, run, secrets, jobClient, takenAt: opts.takenAt });
    return await sweepAndFinish(opts, job, run, resumed, full, secrets, jobClient, { requestBudget, planned });
  } finally {
    await lock.release();
  }
}

/**
 * The job lock's connection was lost while the run held it. A LeaseLostError (fatal, and the run
 * is left running for the next run to resume), with its own words: no one has taken over yet.
 */
class LockLostError extends LeaseLostError {
  constructor(runId: string) {
    super(runId);
    this.message = `run ${runId}: the database connection holding the job's lock was lost; this process stops sending and commits nothing more (the next run resumes it)`;
  }
}

/**
 * The relations a job's run may mark gone: those it has a scope for (the entities decide), and
 * stop-line pairs wherever it looks for stops, since a stop found gone takes its pairs along.
 */
function sweptRelations(job: LoadedJob['job']): Relation[] {
  const looked = RELATIONS.filter((r) => entities[r].scopeOf(job) !== undefined);
  return looked.includes('pins') && !looked.includes('stop_lines') ? [...looked, 'stop_lines'] : looked;
}

async function sweepAndFinish(
  opts: RunJobOptions,
  job: LoadedJob['job'],
  run: OpenedRun,
  resumed: boolean,
  full: boolean,
  secrets: readonly string[],
  { client, scheduler, dialect, rateChanges }: JobClient,
  { requestBudget, planned }: { requestBudget: number; planned: number },
): Promise<RunSummary> {
  const { db, log } = opts;
  const stats = new RunStats();
  const progressSource = { requests: () => scheduler.requestsSent, retries: () => scheduler.stats().retries, allowedRate: () => scheduler.requestsPerSecond };
  // A resumed run's plan is what is pending, not the whole night: the units known are its estimate.
  const progress = new Progress(log, progressSource, opts.progress ?? 'off', resumed ? {} : { plannedUnits: planned });
  const finished = new Map<string, Set<string>>();
  if (resumed) for (const op of ['opArea', 'servingLines', 'addInfo', 'stopFinder']) finished.set(op, await finishedUnits(db.kysely, run.runId, op));
  const ctx: SweepContext = {
    db,
    run,
    job,
    region: opts.loaded.region,
    regionBBox: regionBBox(opts.loaded.region),
    client,
    log,
    stats,
    progress,
    today: opts.today ?? new Date().toISOString().slice(0, 10),
    transact: createBatchingWriter(db, run),
    messages: new Map(),
    finished,
    full,
    capDetector: createCapDetector(),
    extendBudget: (n) => scheduler.extendBudget(n),
    secrets,
    splitMemory: createSplitMemory(),
  };
  const before = await requestsSoFar(db.kysely, run.runId);

  let failure: unknown;
  progress.start();
  try {
    await sweepOpArea(ctx);
    if (job.sweeps.coord) await sweepCoordPhase(ctx, job.sweeps.coord, resumed, full);
    await sweepStopFinder(ctx);
    await sweepServingLines(ctx);
    await sweepAddInfo(ctx);
  } catch (error) {
    failure = error;
    // The CLI says it once, as the run's last word; here only for debugging.
    log.debug(`run ${run.runId} failed: ${redactText(errorText(error), secrets)}`);
  } finally {
    progress.stop();
  }
  // Taken over, told to stop (whatever the cancelled work failed with), or a statement cancelled by
  // the server's statement_timeout: commit nothing more; the run stays running for the next run to resume.
  if (opts.signal?.aborted) throw opts.signal.reason;
  if (failure instanceof LeaseLostError || failure instanceof RunStoppedError || isStatementTimeout(failure)) throw failure;
  const sweepsEnded = Date.now();
  // A long finalisation (deletions over a large world) is then not taken for a hang.
  log.info(`run ${run.runId}: sweeps done after ${seconds(sweepsEnded - run.startedAt.getTime())} s; finalising (deletions, counts, run record)`);
  const summary = await finalise(opts, ctx, { failure, before, scheduler: scheduler.stats(), rate: rateChanges(), dialect: dialectInUse(dialect), resumed, requestBudget });
  return { ...summary, phases: { sweepS: seconds(sweepsEnded - run.startedAt.getTime()), loadS: seconds(ctx.transact.busyMs()) } };
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

async function sweepCoordPhase(ctx: SweepContext, cfg: NonNullable<LoadedJob['job']['sweeps']['coord']>, resumed: boolean, full: boolean): Promise<void> {
  const { db, run, log } = ctx;
  let tiles: Tile[];
  let known = 0;
  if (resumed) {
    tiles = await pendingTiles(db.kysely, run.runId);
  } else {
    const plan = await planCoordTiles(db.kysely, run.source, cfg, ctx.region, full);
    tiles = plan.tiles;
    known = plan.known;
    await ctx.transact((tx) => recordTiles(tx.kysely, run.runId, tiles.map(pendingRecord)));
  }
  log.info(`coordInfo: ${tiles.length} ${resumed ? 'pending tiles left' : known > 0 ? `tiles planned from ${known} known pins` : 'tile(s) to start from'}`);
  await sweepCoord(ctx, tiles);
}

/**
 * The end of a run: its status from the units' outcomes; deletions (only for a run that did not
 * fail, only in its scope, held by the mass-deletion guard when too many), the run record and the
 * run's end commit together, so a crash here leaves the run "running" and the resumed run finalises
 * it exactly once.
 */
async function finalise(
  opts: RunJobOptions,
  ctx: SweepContext,
  end: { failure: unknown; before: number; scheduler: SchedulerStats; rate: RateHistory; dialect: string; resumed: boolean; requestBudget: number },
): Promise<RunSummary> {
  const { db, log, job, run, stats } = ctx;
  const { failure } = end;
  const requests = end.before + end.scheduler.requestsSent;
  if (job.dialect === 'auto') log.info(`dialect detected: ${end.dialect}`);
  const messages = redactDeep([...ctx.messages.values()], ctx.secrets) as ServerMessage[];
  const silentCap = ctx.capDetector.effectiveCap;
  const budgetSpent = end.scheduler.requestsSent >= end.requestBudget ? end.requestBudget : undefined;
  if (budgetSpent !== undefined) {
    log.warn(`the run's request budget of ${budgetSpent} requests ran out: the units left were not fetched (the run is partial). If the region really needs more, raise limits.requestBudget in the job.`);
  }
  if (silentCap !== undefined) {
    log.warn(`coordInfo: the server silently stops at ${silentCap} records, below max (proved by a confirming request): ${silentCap} was taken as its cap (tiles that reached it were split, or count as capped)`);
  }
  await analyzeLedger(db.kysely);
  let gone: GoneOutcome = { marked: {}, held: [] };
  let status: Exclude<RunStatus, 'running'> = 'failed';
  let relations: RelationCounts = {};
  let outcomes: UnitOutcomes = { failed: [], stored: 0, untrusted: 0 };
  let error: string | undefined;
  // One duration per run, the same everywhere: efa.runs' started_at to finished_at, stamped again
  // (stampRunEnd) once deletions, pruning and the views are done, so it includes finalisation.
  const finaliseStartedAt = new Date();
  const finishedAt = finaliseStartedAt;
  let durationS = Math.round((finishedAt.getTime() - run.startedAt.getTime()) / 100) / 10;
  let finaliseS = 0;
  await db.transaction(async (tx) => {
    // Tiles judged before the cap was noticed and that answered it are not complete.
    await remarkSilentCapped(tx.kysely, run.runId, silentCap);
    outcomes = await unitOutcomes(tx.kysely, run.runId);
    if (failure === undefined && outcomes.stored > 0) {
      gone = await markGone(tx, run, sweptRelations(job), {
        maxGonePercent: job.maxGonePercent,
        accept: opts.acceptDeletions ?? false,
        jobName: job.name,
        ...(job.sweeps.servingLines?.forStops ? { cycleRuns: { stop_lines: job.sweeps.servingLines.refreshEveryNights } } : {}),
      });
    }
    // Capped and incomplete units were stored but may lack objects (nothing in them was marked
    // gone): like failed units and held deletions, they make a run partial, never a quiet success.
    status =
      failure !== undefined ? 'failed'
      : outcomes.failed.length === 0 && gone.held.length === 0 && outcomes.untrusted === 0 ? 'succeeded'
      : outcomes.stored === 0 ? 'failed'
      : 'partial';
    error = runError(failure, outcomes, gone, budgetSpent, ctx.secrets, stats.notes);
    relations = await relationCounts(tx.kysely, run.runId);
    failpoint('finalise');
    const meta: RunMeta = {
      source: run.source,
      dialect: end.dialect,
      requestsByOperation: end.scheduler.requestsByOperation,
      retries: end.scheduler.retries,
      units: stats.units,
      rejects: stats.rejects,
      failures: outcomes.failed.slice(0, 50),
      capped: stats.capped.slice(0, 50),
      incomplete: stats.incomplete.slice(0, 50),
      heldDeletions: gone.held,
      durationS,
      ...(stats.vehiclesNotStored > 0 ? { vehiclesNotStored: stats.vehiclesNotStored } : {}),
    };
    await finishRun(tx, run, { status, finishedAt, requests, stats: relations, meta, messages, error });
  });
  if (stats.vehiclesNotStored > 0) {
    log.info(`coordInfo: ${stats.vehiclesNotStored} sharing vehicle(s) in the answers were not stored as pins (vehicles are the snapshot sweep's time series: sweeps.vehicles)`);
  }
  for (const h of gone.held) {
    log.warn(`${heldDeletionText(h)}. If the deployment really removed them, run again with --accept-deletions, or raise maxGonePercent in the job.`);
  }
  await pruneSeen(db.kysely, job.name);
  await pruneHistoryFor(db.kysely, job.history);
  await refreshAnalystViews(db, { runChanged: Object.values(relations).some((c) => c.inserted + c.updated + c.deleted > 0) });
  const stamped = await stampRunEnd(db.kysely, run, finaliseStartedAt);
  if (stamped) ({ durationS, finaliseS } = stamped);
  const finalStatus = status as Exclude<RunStatus, 'running'>;
  return {
    runId: run.runId,
    job: job.name,
    source: sourceOf(job),
    dialect: end.dialect,
    status: finalStatus,
    exitCode: failure !== undefined && isFatal(failure) ? ExitCode.usage : exitCodes[finalStatus],
    resumed: end.resumed,
    durationS,
    finaliseS,
    requests,
    requestsByOperation: end.scheduler.requestsByOperation,
    retries: end.scheduler.retries,
    rate: end.rate,
    relations,
    stats: { ...relations, _units: stats.units, _rejects: stats.rejects },
    units: stats.units,
    rejects: stats.rejects,
    ...(job.sweeps.coord ? { coord: await coordFloor(ctx, end.scheduler.requestsByOperation['coordInfo'] ?? 0, job.sweeps.coord.maxPerRequest) } : {}),
    failures: outcomes.failed,
    capped: stats.capped,
    heldDeletions: gone.held,
    messages,
    db: db.displayUrl,
    ...(error ? { error } : {}),
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

/**
 * The requests the plan expects from what the database knows (tiles from known pins, known stops).
 * The default request budget is ten times it, and at least 20,000: generous for a real night, a
 * bound for a server that claims every box is full. The ServingLines phase adds its due stops when
 * it starts (it learns them only then). The progress bar's ETA starts from it too.
 */
async function plannedRequests(db: Db, source: string, job: LoadedJob['job'], region: LoadedJob['region']): Promise<number> {
  const stops = job.sweeps.servingLines?.forStops ? await knownStopCount(db.kysely, source) : 0;
  return planRun(job, region, { stops }).budget.total;
}

/** The operation name the upstream probe's requests are counted under (requestsByOperation.probe). */
export const PROBE_OPERATION = 'probe';

/** The same scheduler, with every request counted under `operation` (its rate, budget and retries shared). */
function countedAs(scheduler: RequestScheduler, operation: string): RequestScheduler {
  return {
    run: (_operation, attempt) => scheduler.run(operation, attempt),
    get requestsSent() {
      return scheduler.requestsSent;
    },
  };
}

/** CoordInfo requests against the physical floor ceil(pins / maxPerRequest) of this region. */
async function coordFloor(ctx: SweepContext, requests: number, max: number): Promise<NonNullable<RunSummary['coord']>> {
  const pins = await seenCount(ctx.db.kysely, ctx.run.runId, 'pins');
  const floor = Math.max(1, Math.ceil(pins / max));
  return { requests, pins, floor, ratio: Math.round((requests / floor) * 100) / 100 };
}
