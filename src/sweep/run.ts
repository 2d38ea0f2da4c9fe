import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { createRun, finishRun, type RunStatus } from '../db/runs.js';
import { createEfaClient, type ServerMessage } from '../efa/index.js';
import { ExitCode } from '../errors.js';
import { createFetchTransport, createRequestScheduler, type SchedulerStats } from '../http/index.js';
import type { Transport } from '../http/types.js';
import { validateJob, type LoadedJob } from '../job/index.js';
import { regionBBox } from '../tiling/index.js';
import { redactSecretsInText, type Logger } from '../util/log.js';
import { createWriteQueue, errorText, type SweepContext } from './context.js';
import { sweepAddInfo } from './add-info.js';
import { sweepCoord } from './coord.js';
import { sweepOpArea } from './op-area.js';
import { initialCoordTiles } from './plan.js';
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
  readonly signal?: AbortSignal;
}

export interface RunSummary {
  readonly runId: string;
  readonly job: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly exitCode: number;
  readonly durationS: number;
  readonly requests: number;
  readonly requestsByOperation: Readonly<Record<string, number>>;
  readonly retries: number;
  readonly stats: Record<string, unknown>;
  readonly coord?: { readonly requests: number; readonly pins: number; readonly floor: number; readonly ratio: number };
  readonly failures: readonly { operation: string; unit: string; error: string }[];
  readonly capped: readonly { operation: string; unit: string; hits: number }[];
  readonly messages: readonly ServerMessage[];
  readonly db: string;
  readonly error?: string;
}

/** The job as it runs: CLI overrides applied and validated like the file itself. */
function effectiveJob(opts: RunJobOptions): LoadedJob['job'] {
  const { job } = opts.loaded;
  return validateJob(
    {
      ...job,
      baseUrl: opts.baseUrl ?? job.baseUrl,
      rateLimit: {
        ...job.rateLimit,
        requestsPerSecond: opts.requestsPerSecond ?? job.rateLimit.requestsPerSecond,
        concurrency: opts.concurrency ?? job.rateLimit.concurrency,
      },
    },
    'options',
  );
}

function statusOf(stats: RunStats, error: unknown): Exclude<RunStatus, 'running'> {
  if (error !== undefined) return 'failed';
  if (stats.failedCount === 0) return 'succeeded';
  return stats.succeededUnits === 0 ? 'failed' : 'partial';
}

const exitCodes = { succeeded: ExitCode.succeeded, partial: ExitCode.partial, failed: ExitCode.failed } as const;

/** One run of a job: job -> tiles -> requests -> records -> rows -> run record. */
export async function runJob(opts: RunJobOptions): Promise<RunSummary> {
  const job = effectiveJob(opts);
  const { db, log } = opts;
  const started = Date.now();
  await migrate(db);
  // The job as run, with credentials in URLs removed: efa.runs is read by analysts.
  const options = JSON.parse(redactSecretsInText(JSON.stringify({ ...job, file: opts.loaded.file }))) as unknown;
  const runId = await createRun(db.kysely, { jobName: job.name, jobHash: opts.loaded.hash, options });
  log.info(`run ${runId} of job ${job.name} started`, { baseUrl: job.baseUrl, db: db.displayUrl });

  const scheduler = createRequestScheduler({
    requestsPerSecond: job.rateLimit.requestsPerSecond,
    concurrency: job.rateLimit.concurrency,
    retries: job.rateLimit.retries,
    timeoutMs: job.rateLimit.timeoutMs,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onEvent: (e) => {
      if (e.kind === 'retry') log.debug(`retrying ${e.operation} in ${Math.round(e.delayMs)} ms: ${e.reason}`);
      if (e.kind === 'rate') log.info(`rate ${e.reason === 'backoff' ? 'lowered' : 'raised'} to ${e.requestsPerSecond.toFixed(2)} req/s`);
    },
  });
  const client = createEfaClient({ baseUrl: job.baseUrl, transport: opts.transport ?? createFetchTransport(), scheduler });
  const stats = new RunStats();
  const progress = new Progress(log, { requests: () => scheduler.requestsSent }, opts.progress ?? 'off');
  const ctx: SweepContext = {
    db,
    runId,
    job,
    region: opts.loaded.region,
    regionBBox: regionBBox(opts.loaded.region),
    client,
    log,
    stats,
    progress,
    today: opts.today ?? new Date().toISOString().slice(0, 10),
    write: createWriteQueue(),
    messages: new Map(),
  };

  let failure: unknown;
  progress.start();
  try {
    await sweepOpArea(ctx);
    await sweepCoord(ctx, job.sweeps.coord ? initialCoordTiles(ctx.region) : []);
    await sweepStopFinder(ctx);
    await sweepServingLines(ctx);
    await sweepAddInfo(ctx);
  } catch (error) {
    failure = error;
    log.error(`run ${runId} failed: ${errorText(error)}`);
  } finally {
    progress.stop();
  }

  const status = statusOf(stats, failure);
  const schedulerStats: SchedulerStats = scheduler.stats();
  const messages = [...ctx.messages.values()];
  const error = failure !== undefined ? errorText(failure) : stats.failedCount > 0 ? `${stats.failedCount} unit(s) failed after retries` : undefined;
  await finishRun(db.kysely, runId, { status, requests: schedulerStats.requestsSent, stats: stats.toJSON(), messages, error });
  return {
    runId,
    job: job.name,
    status,
    exitCode: exitCodes[status],
    durationS: Math.round((Date.now() - started) / 100) / 10,
    requests: schedulerStats.requestsSent,
    requestsByOperation: schedulerStats.requestsByOperation,
    retries: schedulerStats.retries,
    stats: stats.toJSON(),
    ...(job.sweeps.coord ? { coord: await coordFloor(ctx, schedulerStats, job.sweeps.coord.maxPerRequest) } : {}),
    failures: stats.failures,
    capped: stats.capped,
    messages,
    db: db.displayUrl,
    ...(error ? { error } : {}),
  };
}

/** CoordInfo requests against the physical floor ceil(pins / maxPerRequest) of this region. */
async function coordFloor(ctx: SweepContext, s: SchedulerStats, max: number): Promise<NonNullable<RunSummary['coord']>> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.run_seen WHERE run_id = ${ctx.runId}::bigint AND relation = 'pins'`.execute(ctx.db.kysely);
  const pins = r.rows[0]?.n ?? 0;
  const requests = s.requestsByOperation['coordInfo'] ?? 0;
  const floor = Math.max(1, Math.ceil(pins / max));
  return { requests, pins, floor, ratio: Math.round((requests / floor) * 100) / 100 };
}
