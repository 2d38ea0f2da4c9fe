import type { Dialect } from '../efa/dialect.js';
import { dialectFor, type AutoDialect } from '../efa/dialects/index.js';
import { createEfaClient, type EfaClient } from '../efa/index.js';
import { createFetchTransport, createRequestScheduler, type MeteredRequestScheduler } from '../http/index.js';
import type { SchedulerEvent, Transport } from '../http/types.js';
import { resolveHeaders, type Job } from '../job/index.js';
import type { Logger } from '../util/log.js';

export interface JobClient {
  readonly client: EfaClient;
  readonly scheduler: MeteredRequestScheduler;
  /** Bounded by the job's limits; the run's probe of its upstream sends through it too. */
  readonly transport: Transport;
  readonly dialect: Dialect;
  /** How the adaptive rate moved during the run, for the run's one summary line. */
  readonly rateChanges: () => RateHistory;
}

/** The adaptive rate over a run: how often it changed and the lowest and highest it was (req/s). */
export interface RateHistory {
  readonly ceiling: number;
  readonly changes: number;
  readonly lowest: number;
  readonly highest: number;
}

/** The EFA client of a job's run: its rate limit, limits, dialect, paths and headers. */
export function createJobClient(
  job: Job,
  opts: { log: Logger; transport?: Transport | undefined; signal?: AbortSignal | undefined; requestBudget?: number | undefined; timeZone?: string | undefined },
): JobClient {
  const { log } = opts;
  const ceiling = job.rateLimit.requestsPerSecond;
  let rate = { ceiling, changes: 0, lowest: ceiling, highest: ceiling };
  const scheduler = createRequestScheduler({
    requestsPerSecond: job.rateLimit.requestsPerSecond,
    concurrency: job.rateLimit.concurrency,
    retries: job.rateLimit.retries,
    timeoutMs: job.rateLimit.timeoutMs,
    maxRetryAfterMs: job.limits.maxRetryAfterS * 1000,
    ...(opts.requestBudget !== undefined ? { maxRequests: opts.requestBudget } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onEvent: (e) => {
      if (e.kind === 'retry') log.debug(`retrying ${e.operation} in ${Math.round(e.delayMs)} ms: ${e.reason}`);
      // Each change is operational detail (a slow server makes hundreds): debug. The run ends with one
      // summary line of them (RateHistory), which is what an operator reads in journald or Loki.
      if (e.kind === 'rate') {
        rate = { ceiling, changes: rate.changes + 1, lowest: Math.min(rate.lowest, e.requestsPerSecond), highest: Math.max(rate.highest, e.requestsPerSecond) };
        log.debug(`rate ${e.reason === 'backoff' ? 'lowered' : 'raised'} to ${e.requestsPerSecond.toFixed(2)} req/s`);
      }
      if (e.kind === 'outage') logOutage(log, e, job.limits.outageWaitS);
    },
  });
  const dialect = dialectFor(job.dialect);
  const headers = resolveHeaders(job);
  const transport =
    opts.transport ??
    createFetchTransport({ maxResponseBytes: Math.round(job.limits.maxResponseMiB * 1024 * 1024), deadlineMs: job.limits.responseDeadlineS * 1000 });
  const client = createEfaClient({
    baseUrl: job.baseUrl,
    transport,
    scheduler,
    dialect,
    headers,
    ...(job.paths ? { paths: job.paths } : {}),
    // Header values may be credentials: never in messages, whatever the header is called.
    secretNames: Object.keys(headers),
    ...(opts.timeZone === undefined ? {} : { timeZone: opts.timeZone }),
  });
  return { client, scheduler, transport, dialect, rateChanges: () => rate };
}

/** The dialect a run read: for `auto`, the one it detected. */
export function dialectInUse(dialect: Dialect): string {
  const auto = dialect as Partial<AutoDialect>;
  return 'chosen' in dialect ? (auto.chosen?.name ?? 'auto (no answer)') : dialect.name;
}

/** What the outage circuit does, as an operator reads it in journald: three lines an outage at most. */
function logOutage(log: Logger, e: Extract<SchedulerEvent, { kind: 'outage' }>, boundS: number): void {
  const s = Math.round(e.waitedMs / 1000);
  if (e.state === 'down') {
    log.warn(`the upstream stopped answering (${e.reason ?? 'no answer'}): sending stops; one probe at a time asks it again, a few a minute, for at most ${boundS} s (limits.outageWaitS)`);
  } else if (e.state === 'up') log.info(`the upstream answers again after ${s} s: the sweep goes on where it was`);
  else log.error(`the upstream did not answer again within ${s} s (limits.outageWaitS): the run stops, resumable (exit 75)`);
}
