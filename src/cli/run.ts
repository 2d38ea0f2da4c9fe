import type { Command } from 'commander';
import type { DialectName } from '../efa/dialects/index.js';
import { readLastSuccess, renderPrometheusMetrics, writeMetricsFile } from '../report/metrics.js';
import { dbUrlFrom, openDb } from '../db/index.js';
import { loadJob, regionOrderHint, type ResolvedRegion } from '../job/index.js';
import { runJob, type RunSummary } from '../sweep/run.js';
import { errorText, ExitCode } from '../errors.js';
import type { Logger } from '../util/log.js';
import { addCommonOptions, defaultStatementTimeoutS, loggerFor, whenDatabaseLost, type CommonOptions } from './common.js';
import { stopOnSignal } from './stop.js';

interface RunOptions extends CommonOptions {
  dialect?: DialectName;
  metricsFile?: string;
  rps?: number;
  concurrency?: number;
  full?: boolean;
  statementTimeout?: number;
  acceptDeletions?: boolean;
}

export function printRunSummary(summary: RunSummary, log: Logger): void {
  const rel = Object.entries(summary.relations)
    .map(([k, s]) => `${k} +${s.inserted} ~${s.updated} -${s.deleted} =${s.unchanged}`)
    .join(', ');
  log.info(`run ${summary.runId} ${summary.status} in ${summary.durationS}s: ${summary.requests} requests (${summary.retries} retries)`);
  if (rel) log.info(`rows: ${rel}`);
  if (summary.coord) {
    log.info(`coordInfo: ${summary.coord.requests} requests for ${summary.coord.pins} pins; floor ceil(pins/max) = ${summary.coord.floor} (${summary.coord.ratio}x)`);
  }
  for (const c of summary.capped.slice(0, 10)) log.warn(`capped tile ${c.unit} (${c.hits} hits): objects beyond the cap may be missing`);
  for (const f of summary.failures.slice(0, 10)) log.warn(`failed ${f.operation} ${f.unit}: ${f.error}`);
  if (summary.failures.length > 10) log.warn(`… and ${summary.failures.length - 10} more failures (efa.run_tiles has them all)`);
}

export function registerRun(program: Command): void {
  const cmd = program.command('run <job>').description('sweep one job (path to a .json/.ts/.js job file, or a job name under jobs/)');
  addCommonOptions(cmd, ['baseUrl', 'rps', 'concurrency', 'full', 'dialect', 'metricsFile', 'statementTimeout', 'acceptDeletions', 'db', 'json', 'log']).action(
    async (jobArg: string, opts: RunOptions) => {
      const log = loggerFor(opts);
      const loaded = await loadJob(jobArg, process.cwd(), { baseUrl: opts.baseUrl });
      const statementTimeoutS = opts.statementTimeout ?? defaultStatementTimeoutS;
      const db = await openDb(dbUrlFrom(opts.db), statementTimeoutS > 0 ? { statementTimeoutMs: Math.round(statementTimeoutS * 1000) } : {});
      const controller = new AbortController();
      const stop = stopOnSignal({ db, job: loaded.job.name, log, debug: opts.debug ?? false, controller });
      try {
        let summary: RunSummary;
        try {
          summary = await whenDatabaseLost(db, loaded.job.name, () =>
            runJob({
              loaded,
              db,
              log,
              baseUrl: opts.baseUrl,
              requestsPerSecond: opts.rps,
              concurrency: opts.concurrency,
              full: opts.full ?? false,
              acceptDeletions: opts.acceptDeletions ?? false,
              dialect: opts.dialect,
              signal: controller.signal,
              progress: process.stderr.isTTY && !opts.json ? 'bar' : 'lines',
            }),
          );
        } catch (error) {
          // A stop signal says its one line and exits; anything else that ends the run (a lost lease,
          // a statement timeout, a lost database) leaves no statement of it running on the server.
          if (stop.stopping) await stop.exited;
          await db.stop().catch(() => undefined);
          throw error;
        }
        if (stop.stopping) await stop.exited;
        summary = withEmptyRegionVerdict(summary, loaded.region, log);
        if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
        else printRunSummary(summary, log);
        if (opts.metricsFile) await writeRunMetrics(opts.metricsFile, summary, log);
        process.exitCode = summary.exitCode;
      } finally {
        stop.dispose();
        await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
      }
    },
  );
}

/**
 * A CoordInfo sweep of the whole region that saw no object at all is no success: the region is most
 * likely not where the operator meant (a bbox written [lat, lon, …] is often a valid box elsewhere).
 * Exit 3 at least, with the order a bbox is read in and the swapped box.
 */
function withEmptyRegionVerdict(summary: RunSummary, region: ResolvedRegion, log: Logger): RunSummary {
  if (summary.coord === undefined || summary.coord.pins > 0 || summary.status === 'failed') return summary;
  log.warn(`coordInfo: the region answered no object at all in ${summary.coord.requests} request(s): ${regionOrderHint(region)}`);
  return summary.exitCode === ExitCode.succeeded ? { ...summary, exitCode: ExitCode.partial } : summary;
}

/**
 * The metrics of a run that happened: a file that cannot be written (a missing directory, no
 * permission, a full disk) is a warning, and the run keeps its own exit code: the data is in
 * the database either way, and a scheduler must not retry a sweep because of its metrics.
 */
export async function writeRunMetrics(path: string, summary: RunSummary, log: Logger): Promise<boolean> {
  try {
    const previous = await readLastSuccess(path, summary.job);
    await writeMetricsFile(path, renderPrometheusMetrics(summary, summary.job, previous === undefined ? {} : { previousLastSuccessS: previous }));
    return true;
  } catch (error) {
    log.warn(`could not write the metrics file ${path}: ${errorText(error)}; the run's exit code ${summary.exitCode} stands`, { metricsFile: path });
    return false;
  }
}
