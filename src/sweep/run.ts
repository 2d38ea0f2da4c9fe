import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { createRun, findUnfinishedRun, finishedUnits, finishRun, pendingTiles, recordTiles, type RunStatus } from '../db/runs.js';
import { dialectFor, type AutoDialect, type DialectName } from '../efa/dialects/index.js';
import { createEfaClient, type ServerMessage } from '../efa/index.js';
import { refreshAnalystViews } from '../db/views.js';
import { ConfigError } from '../errors.js';
import { ExitCode } from '../errors.js';
import { createFetchTransport, createRequestScheduler, type SchedulerStats } from '../http/index.js';
import type { Transport } from '../http/types.js';
import { validateJob, type LoadedJob } from '../job/index.js';
import { regionBBox, type Tile } from '../tiling/index.js';
import { failpoint } from '../util/failpoint.js';
import { redactSecretsInText, type Logger } from '../util/log.js';
import { createBatchingWriter, errorText, isFatal, type SweepContext } from './context.js';
import { sweepAddInfo } from './add-info.js';
import { pendingRecord, sweepCoord } from './coord.js';
import { markGone, pruneSeen, runStats } from './finalise.js';
import { sweepOpArea } from './op-area.js';
import { planCoordTiles } from './plan.js';
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
  readonly signal?: AbortSignal;
}

export interface RunSummary {
  readonly runId: string;
  readonly job: string;
  /** The response dialect the run read (for `auto`, the one detected). */
  readonly dialect: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly exitCode: number;
  /** This run continued one that had been interrupted. */
  readonly resumed: boolean;
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

/** A crashed run of the same job is resumed when the job is unchanged; otherwise it is closed and a fresh run starts. */
async function openRun(opts: RunJobOptions, job: LoadedJob['job'], full: boolean): Promise<{ runId: string; resumed: boolean }> {
  const { db, log } = opts;
  const unfinished = await findUnfinishedRun(db.kysely, job.name);
  if (unfinished && unfinished.jobHash === opts.loaded.hash && !full) {
    log.info(`resuming run ${unfinished.runId} of job ${job.name} (started ${unfinished.startedAt.toISOString()}, interrupted)`);
    await db.kysely.updateTable('efa.runs').set({ pid: process.pid, heartbeat_at: new Date() }).where('run_id', '=', unfinished.runId).execute();
    return { runId: unfinished.runId, resumed: true };
  }
  if (unfinished) {
    const why = full ? '--full was given' : 'the job changed since it started';
    log.warn(`run ${unfinished.runId} of job ${job.name} was interrupted and cannot be resumed (${why}); starting a fresh run`);
    await finishRun(db.kysely, unfinished.runId, { status: 'failed', requests: 0, stats: {}, messages: [], error: `interrupted; not resumed because ${why}` });
  }
  // The job as run, with credentials in URLs removed: efa.runs is read by analysts.
  const options = JSON.parse(redactSecretsInText(JSON.stringify({ ...job, file: opts.loaded.file }))) as unknown;
  const runId = await createRun(db.kysely, { jobName: job.name, jobHash: opts.loaded.hash, options });
  return { runId, resumed: false };
}

/** One run of a job: job -> tiles -> requests -> records -> rows -> run record. */
export async function runJob(opts: RunJobOptions): Promise<RunSummary> {
  const job = effectiveJob(opts);
  const { db, log } = opts;
  const full = opts.full ?? false;
  const started = Date.now();
  await migrate(db);
  const lock = await db.lockJob(job.name);
  try {
    const { runId, resumed } = await openRun(opts, job, full);
    await lock.holds(runId);
    log.info(`run ${runId} of job ${job.name} ${resumed ? 'resumed' : 'started'}`, { baseUrl: job.baseUrl, db: db.displayUrl });
    return await sweepAndFinish(opts, job, runId, resumed, full, started);
  } finally {
    await lock.release();
  }
}

async function sweepAndFinish(
  opts: RunJobOptions,
  job: LoadedJob['job'],
  runId: string,
  resumed: boolean,
  full: boolean,
  started: number,
): Promise<RunSummary> {
  const { db, log } = opts;
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
  const dialect = dialectFor(job.dialect);
  const headers = resolveHeaders(job.headers ?? {});
  const client = createEfaClient({
    baseUrl: job.baseUrl,
    transport: opts.transport ?? createFetchTransport(),
    scheduler,
    dialect,
    headers,
    ...(job.paths ? { paths: job.paths } : {}),
    // Header values may be credentials: never in messages, whatever the header is called.
    secretNames: Object.keys(headers),
  });
  const stats = new RunStats();
  const progress = new Progress(log, { requests: () => scheduler.requestsSent }, opts.progress ?? 'off');
  const finished = new Map<string, Set<string>>();
  if (resumed) for (const op of ['opArea', 'servingLines', 'addInfo', 'stopFinder']) finished.set(op, await finishedUnits(db.kysely, runId, op));
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
    transact: createBatchingWriter(db.kysely),
    messages: new Map(),
    finished,
    full,
  };
  const before = await db.kysely.selectFrom('efa.runs').select('requests').where('run_id', '=', runId).executeTakeFirstOrThrow();

  let failure: unknown;
  let known = 0;
  progress.start();
  try {
    await sweepOpArea(ctx);
    if (job.sweeps.coord) {
      let tiles: Tile[];
      if (resumed) {
        tiles = await pendingTiles(db.kysely, runId);
      } else {
        const plan = await planCoordTiles(db.kysely, job.sweeps.coord, ctx.region, full);
        tiles = plan.tiles;
        known = plan.known;
        await recordTiles(db.kysely, runId, tiles.map(pendingRecord));
      }
      log.info(`coordInfo: ${tiles.length} ${resumed ? 'pending tiles left' : known > 0 ? `tiles planned from ${known} known pins` : 'tile(s) to start from'}`);
      await sweepCoord(ctx, tiles);
    }
    await sweepStopFinder(ctx);
    await sweepServingLines(ctx);
    await sweepAddInfo(ctx);
  } catch (error) {
    failure = error;
    log.error(`run ${runId} failed: ${errorText(error)}`);
  } finally {
    progress.stop();
  }

  const failedUnits = await db.kysely
    .selectFrom('efa.run_tiles')
    .select(['operation', 'tile_id', 'error'])
    .where('run_id', '=', runId)
    .where('status', '=', 'failed')
    .execute();
  const doneUnits = await db.kysely.selectFrom('efa.run_tiles').select(db.kysely.fn.countAll<number>().as('n')).where('run_id', '=', runId).where('status', 'in', ['done', 'capped']).executeTakeFirst();
  const status: Exclude<RunStatus, 'running'> =
    failure !== undefined ? 'failed' : failedUnits.length === 0 ? 'succeeded' : Number(doneUnits?.n ?? 0) === 0 ? 'failed' : 'partial';
  const schedulerStats: SchedulerStats = scheduler.stats();
  const requests = before.requests + schedulerStats.requestsSent;
  const dialectUsed = 'chosen' in dialect ? ((dialect as AutoDialect).chosen?.name ?? 'auto (no answer)') : dialect.name;
  if (job.dialect === 'auto') log.info(`dialect detected: ${dialectUsed}`);
  const messages = [...ctx.messages.values()];
  const error =
    failure !== undefined ? errorText(failure) : failedUnits.length > 0 ? `${failedUnits.length} unit(s) failed after retries` : undefined;
  // Freshly loaded tables have no statistics (autovacuum may be off or behind): without them the
  // planner picks a nested-loop anti join for the deletion check that takes hours on 500k pins.
  await sql`ANALYZE efa.pins, efa.run_seen, efa.run_tiles, efa.stop_lines`.execute(db.kysely);
  // Deletions, the statistics and the run's end commit together: a crash here leaves the run
  // "running", and the resumed run finalises it exactly once.
  const relations = await db.kysely.transaction().execute(async (trx) => {
    if (status !== 'failed') await markGone(trx, ctx);
    const rel = await runStats(trx, runId);
    failpoint('finalise');
    const all = {
      ...rel,
      _dialect: dialectUsed,
      _requests: schedulerStats.requestsByOperation,
      _retries: schedulerStats.retries,
      _units: stats.units,
      _rejects: stats.rejects,
      _failures: failedUnits.slice(0, 50),
      _capped: stats.capped.slice(0, 50),
    };
    await finishRun(trx, runId, { status, requests, stats: all, messages, error });
    return rel;
  });
  await pruneSeen(db.kysely, job.name);
  await refreshAnalystViews(db);
  const statsJson: Record<string, unknown> = { ...relations, _units: stats.units, _rejects: stats.rejects };
  return {
    runId,
    job: job.name,
    dialect: dialectUsed,
    status,
    exitCode: failure !== undefined && isFatal(failure) ? ExitCode.usage : exitCodes[status],
    resumed,
    durationS: Math.round((Date.now() - started) / 100) / 10,
    requests,
    requestsByOperation: schedulerStats.requestsByOperation,
    retries: schedulerStats.retries,
    stats: statsJson,
    ...(job.sweeps.coord ? { coord: await coordFloor(ctx, schedulerStats, job.sweeps.coord.maxPerRequest) } : {}),
    failures: failedUnits.map((f) => ({ operation: f.operation, unit: f.tile_id, error: f.error ?? '' })),
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

/** Header values from the environment; a missing variable is a configuration error naming it. */
function resolveHeaders(spec: Readonly<Record<string, string | { env: string }>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec)) {
    if (typeof value === 'string') {
      out[name] = value;
      continue;
    }
    const fromEnv = process.env[value.env];
    if (fromEnv === undefined || fromEnv === '') throw new ConfigError(`headers.${name}: environment variable ${value.env} is not set`, `headers.${name}`);
    out[name] = fromEnv;
  }
  return out;
}
