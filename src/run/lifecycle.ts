import { finishRun, LeaseLostError, recordStopped, requestsSoFar, reserveRequests, stampRunEnd, type OpenedRun } from '../db/runs.js';
import type { RunMeta } from '../db/run-record.js';
import { knownStopCount } from '../db/known.js';
import { migrate } from '../db/migrate.js';
import type { Db } from '../db/connect.js';
import { assertUpstreamUsable, probeUpstream } from './probe.js';
import { sourceOf } from '../relations/index.js';
import { errorText, isStatementTimeout, RunStoppedError } from '../errors.js';
import type { RequestScheduler } from '../http/types.js';
import { UpstreamOutageError } from '../http/index.js';
import { isSnapshotJob, resolveHeaders, validateJob, type LoadedJob } from '../job/index.js';
import { deploymentTimeZone } from '../job/time-zone.js';
import { snapshotRun } from './snapshot.js';
import { createJobClient, dialectInUse } from './client.js';
import { nightlyRun } from './nightly.js';
import { planRun, radialCircleCount } from '../sweep/nightly/plan.js';
import { failpoint } from '../util/failpoint.js';
import { collectSecrets, redactText } from '../util/redact.js';
import type { Ending, Outcome, RunContext, RunJobOptions, RunKind } from './kind.js';
import { openRun } from './open.js';
import { runExitCode, seconds, stoppedRunSummary, type RunSummary } from './summary.js';

export type { LiveRun, RunJobOptions } from './kind.js';

/** A run's request budget without limits.requestBudget: ten times its plan, and never below this. */
const MIN_REQUEST_BUDGET = 20_000;

/** The operation name the upstream probe's requests are counted under (requestsByOperation.probe). */
export const PROBE_OPERATION = 'probe';

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

/**
 * One run of a job, whatever its kind: job -> probe -> lock -> open or resume -> the kind's work ->
 * the run's end (with what must commit with it) -> upkeep -> the stamped end -> the summary.
 */
export async function runJob(opts: RunJobOptions): Promise<RunSummary> {
  const job = effectiveJob(opts);
  const { db, log } = opts;
  const full = opts.full ?? false;
  const kind: RunKind = isSnapshotJob(job) ? snapshotRun : nightlyRun;
  // Every credential the configuration holds, in every form it may be echoed: redacted from
  // everything the run stores or prints.
  const headers = resolveHeaders(job);
  const secrets = collectSecrets({ urls: [job.baseUrl], headers, secretNames: Object.keys(headers) });
  // Refused before a request is sent, whatever the budget: a RADIAL sweep over a continent (exit 2).
  if (job.sweeps.opArea?.mode === 'RADIAL') radialCircleCount(opts.loaded.region);
  // Aborted when the job lock is lost mid-run: the process stops sending at once (a second run may
  // be taking over and sending at the full rate) and leaves the run to be resumed. Aborted too when
  // the database fails while the probe is still asking (below): nothing more is sent.
  const lockLost = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, lockLost.signal]) : lockLost.signal;
  const timeZone = deploymentTimeZone(job, opts.loaded.region);
  // The budget's floor now and the rest once the night is sized, so the probe need not wait for it.
  const givenBudget = job.limits.requestBudget;
  const startingBudget = givenBudget ?? MIN_REQUEST_BUDGET;
  const jobClient = createJobClient(job, { log, transport: opts.transport, signal, requestBudget: startingBudget, timeZone: timeZone.zone });
  // Fail fast: a wrong base URL or path, a refused credential, an unknown host or another dialect
  // is a configuration error (exit 2) before anything is planned, not a night of failed tiles.
  // Through the run's own scheduler and transport: the probe keeps to its rate, budget and limits,
  // and its requests are counted under their own name (requestsByOperation.probe), so the run's
  // total is the sum of its operations and the CoordInfo count is the tiling's own. It is asked while
  // the schema is checked and the night sized: the upstream's answer and the database's work
  // overlap (a probe's round trip, 0.16 s against the simulator, more against a real deployment).
  const probing = probeUpstream({ job, region: opts.loaded.region }, { scheduler: countedAs(jobClient.scheduler, PROBE_OPERATION), transport: jobClient.transport });
  // Awaited below; the database's failure, if it comes first, is the run's error.
  probing.catch(() => undefined);
  let planned: number;
  try {
    await migrate(db);
    planned = await plannedRequests(db, sourceOf(job), job, opts.loaded.region);
  } catch (error) {
    lockLost.abort(error);
    throw error;
  }
  const requestBudget = givenBudget ?? Math.max(MIN_REQUEST_BUDGET, 10 * planned);
  jobClient.scheduler.extendBudget(requestBudget - startingBudget);
  assertUpstreamUsable(await probing);
  // From here an upstream that stops answering is waited for (a pause, not a lost night); before,
  // the probe said whether it answers at all (exit 75 when not: nothing was started).
  jobClient.scheduler.watchOutages({ maxWaitMs: job.limits.outageWaitS * 1000, ...opts.outagePauses });
  const lock = await db.lockJob(job.name);
  try {
    const { run, resumed } = await openRun({ db, log, loaded: opts.loaded, job, full, resumable: kind.resumable, secrets, timeZone: timeZone.zone, waitingSinceMs: opts.waitingSinceMs });
    await lock.holds(run.runId);
    const stopSending = (): void => lockLost.abort(new LockLostError(run.runId));
    if (lock.lost.aborted) stopSending();
    else lock.lost.addEventListener('abort', stopSending, { once: true });
    log.info(`run ${run.runId} of job ${job.name} ${resumed ? 'resumed' : 'started'} (source ${run.source})`, { baseUrl: redactText(job.baseUrl, secrets), db: db.displayUrl, timeZone: `${timeZone.zone} (from the ${timeZone.from})` });
    const ctx: RunContext = { options: opts, db, log, job, loaded: opts.loaded, run, resumed, full, secrets, jobClient, planned, requestBudget, timeZone };
    const before = await requestsSoFar(db.kysely, run.runId);
    jobClient.scheduler.countBeforeSending(requestJournal(db, run, before, job.rateLimit, log));
    opts.onOpened?.({
      run, runId: run.runId, source: run.source, resumed, job, secrets,
      requests: () => before + jobClient.scheduler.stats().requestsSent,
      requestsByOperation: () => jobClient.scheduler.stats().requestsByOperation,
      retries: () => jobClient.scheduler.stats().retries,
      dialect: () => dialectInUse(jobClient.dialect),
    });
    const outcome = await kind.execute(ctx);
    // Taken over, told to stop (whatever the cancelled work failed with), or a statement cancelled by
    // the server's statement_timeout: commit nothing more; the run stays running (or is recorded
    // stopped by the signal's handler, src/cli/stop.ts) for the next run to resume.
    if (opts.signal?.aborted) throw opts.signal.reason;
    const { failure } = outcome;
    if (failure instanceof LeaseLostError || failure instanceof RunStoppedError || (kind.resumable && isStatementTimeout(failure))) throw failure;
    if (failure instanceof UpstreamOutageError && kind.resumable) return await stopForOutage(ctx, failure, before);
    return await finish(ctx, outcome, before);
  } finally {
    await lock.release();
  }
}

/**
 * The end of a run: what the kind settles commits with the run's record (so a crash here leaves the
 * run "running" and a resumed run finalises it exactly once), then upkeep, then the run's one
 * duration, stamped on the database's clock so it includes all of this.
 */
async function finish(ctx: RunContext, outcome: Outcome, before: number): Promise<RunSummary> {
  const { db, log, job, run, jobClient } = ctx;
  const dialect = dialectInUse(jobClient.dialect);
  if (job.dialect === 'auto') log.info(`dialect detected: ${dialect}`);
  await outcome.prepare?.();
  const scheduler = jobClient.scheduler.stats();
  const requests = before + scheduler.requestsSent;
  const finaliseStartedAt = new Date();
  let durationS = seconds(finaliseStartedAt.getTime() - run.startedAt.getTime());
  let finaliseS = 0;
  let ending: Ending | undefined;
  await db.transaction(async (tx) => {
    ending = await outcome.settle(tx);
    failpoint('finalise');
    const meta: RunMeta = {
      source: run.source,
      dialect,
      requestsByOperation: scheduler.requestsByOperation,
      retries: scheduler.retries,
      ...(scheduler.outage.outages > 0 ? { outage: scheduler.outage } : {}),
      units: { ...ending.units },
      rejects: ending.rejects,
      failures: ending.failures.slice(0, 50),
      capped: ending.capped.slice(0, 50),
      incomplete: ending.incomplete.slice(0, 50),
      heldDeletions: [...ending.heldDeletions],
      durationS,
      ...ending.meta,
    };
    await finishRun(tx, run, { status: ending.status, finishedAt: finaliseStartedAt, requests, stats: ending.relations, meta, messages: ending.messages, error: ending.error });
  });
  if (!ending) throw new Error(`run ${run.runId}: the run's end was not settled`);
  const end: Ending = ending;
  const exitCode = runExitCode(end.status, outcome.failure);
  ctx.options.onEnded?.({ status: end.status, exitCode });
  log.debug(`run ${run.runId} ${end.status}: its end is committed; upkeep follows`);
  failpoint('ended');
  await outcome.tidy();
  const stamped = await stampRunEnd(db.kysely, run, finaliseStartedAt);
  if (stamped) ({ durationS, finaliseS } = stamped);
  return {
    runId: run.runId,
    job: job.name,
    source: run.source,
    dialect,
    status: end.status,
    exitCode,
    resumed: ctx.resumed,
    durationS,
    finaliseS,
    requests,
    requestsByOperation: scheduler.requestsByOperation,
    retries: scheduler.retries,
    rate: jobClient.rateChanges(),
    ...(scheduler.outage.outages > 0 ? { outage: scheduler.outage } : {}),
    relations: end.relations,
    stats: { ...end.relations, _units: end.units, _rejects: end.rejects },
    units: { ...end.units },
    rejects: end.rejects,
    failures: end.failures,
    capped: end.capped,
    heldDeletions: [...end.heldDeletions],
    messages: end.messages,
    db: db.displayUrl,
    ...(end.error ? { error: end.error } : {}),
    ...(await outcome.report()),
  };
}

/**
 * efa.runs.requests recorded ahead of sending, a block at a time (one write per block, not per
 * request), before the tokens it covers are taken (src/http/scheduler.ts): after a SIGKILL the
 * count is at least what was sent, at most a block and a half above it. Every end of a run
 * (finished, stopped) writes the exact count.
 *
 * A block is about a second of requests at the ceiling: the writer's transactions open with the
 * run's lease check, an UPDATE of the same efa.runs row (src/db/runs.ts leaseStatement), so this
 * write waits for the writer's transaction to commit. Blocks of 16 made the sweep wait for the
 * writer every 16 requests (a night one of 200,000 pins 1.84x its floor went to 2.11x, and the
 * requests left in bursts); a second's worth, written half a block ahead, keeps it off the path.
 */
function requestJournal(db: Db, run: OpenedRun, before: number, rate: { readonly concurrency: number; readonly requestsPerSecond: number }, log: RunContext['log']): (sent: number) => Promise<void> | undefined {
  const block = Math.max(10, 2 * rate.concurrency, Math.ceil(rate.requestsPerSecond));
  let recorded = before;
  let writing: Promise<void> | undefined;
  const write = (total: number): Promise<void> =>
    (writing ??= (async () => {
      const target = total + block - 1;
      try {
        await reserveRequests(db.kysely, run, target);
      } catch (error) {
        // The database's loss shows where the run writes; the requests go on meanwhile.
        log.debug(`run ${run.runId}: recording the request count ahead failed: ${errorText(error)}`);
      }
      recorded = Math.max(recorded, target);
    })().finally(() => (writing = undefined)));
  const ensure = async (total: number): Promise<void> => {
    while (recorded < total) await write(total);
  };
  return (sent) => {
    const total = before + sent;
    // The next block is written once half of this one is used, while the requests go on: an attempt
    // waits for the database only when the writes fall a whole block behind.
    if (writing === undefined && total + block / 2 > recorded) void write(Math.max(total, recorded + 1));
    return total <= recorded ? undefined : ensure(total);
  };
}

/**
 * The upstream stayed down past limits.outageWaitS: the run is recorded `stopped` (resumable, like a
 * signal's stop), its requests and duration fixed now, and the command ends with exit 75, which the
 * shipped systemd unit and CronJob retry; that next run resumes it where it stopped. Nothing is
 * finalised: no unit was lost to the outage, and nothing is marked gone.
 */
async function stopForOutage(ctx: RunContext, outage: UpstreamOutageError, before: number): Promise<RunSummary> {
  const { db, log, job, run, jobClient } = ctx;
  const scheduler = jobClient.scheduler.stats();
  const requests = before + scheduler.requestsSent;
  const error = redactText(
    `${outage.message}; nothing committed is lost: the next \`efa-sync run\` of job ${job.name} resumes where this one stopped (exit 75: try again later)`,
    ctx.secrets,
  );
  const recorded = await recordStopped(db.kysely, run, { requests, error });
  ctx.options.onEnded?.({ status: 'stopped', exitCode: outage.exitCode });
  if (recorded === undefined) log.debug(`run ${run.runId}: its stop was not recorded (taken over); the next run resumes it all the same`);
  return {
    ...stoppedRunSummary({
      runId: run.runId, job: job.name, source: run.source, dialect: dialectInUse(jobClient.dialect), exitCode: outage.exitCode, resumed: ctx.resumed,
      durationS: recorded ?? seconds(Date.now() - run.startedAt.getTime()),
      requests, requestsByOperation: scheduler.requestsByOperation, retries: scheduler.retries, db: db.displayUrl, error,
    }),
    rate: jobClient.rateChanges(),
    outage: scheduler.outage,
  };
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
 * The requests the plan expects from what the database knows (tiles from known pins, known stops).
 * The default request budget is ten times it, and at least 20,000: generous for a real night, a
 * bound for a server that claims every box is full. The ServingLines phase adds its due stops when
 * it starts (it learns them only then). The progress bar's ETA starts from it too.
 */
async function plannedRequests(db: Db, source: string, job: LoadedJob['job'], region: LoadedJob['region']): Promise<number> {
  const stops = job.sweeps.servingLines?.forStops ? await knownStopCount(db.kysely, source) : 0;
  return planRun(job, region, { stops }).budget.total;
}

/** The same scheduler, with every request counted under `operation` (its rate, budget and retries shared). */
function countedAs(scheduler: RequestScheduler, operation: string): RequestScheduler {
  return {
    run: (_operation, attempt) => scheduler.run(operation, attempt),
    get requestsSent() {
      return scheduler.requestsSent;
    },
  };
}

