import { Option, type Command } from 'commander';
import { DIALECT_NAMES, type DialectName } from '../efa/dialects/index.js';
import { readLastSuccess, renderPrometheusMetrics, writeMetricsFile } from '../report/metrics.js';
import { dbUrlFrom, openDb } from '../db/index.js';
import { loadJob } from '../job/index.js';
import { runJob, type RunSummary } from '../sweep/run.js';
import { errorText } from '../errors.js';
import type { Logger } from '../util/log.js';
import { addDbOption, addOutputOptions, baseUrlOption, loggerFor, OPTION_ENV, positiveNumber, whenDatabaseLost, type CommonOptions } from './common.js';

interface RunOptions extends CommonOptions {
  dialect?: DialectName;
  metricsFile?: string;
  rps?: number;
  concurrency?: number;
  full?: boolean;
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
  const cmd = program
    .command('run <job>')
    .description('sweep one job (path to a .json/.ts/.js job file, or a job name under jobs/)')
    .addOption(baseUrlOption("override the job's baseUrl"))
    .addOption(new Option('--rps <n>', "override the job's requestsPerSecond").argParser(positiveNumber('--rps')).env(OPTION_ENV.rps))
    .addOption(new Option('--concurrency <n>', "override the job's concurrency").argParser(positiveNumber('--concurrency')).env(OPTION_ENV.concurrency))
    .option('--full', 'ignore incremental state and sweep everything')
    .addOption(
      new Option(
        '--accept-deletions',
        "mark gone what this run found gone even past the job's maxGonePercent (after a night the mass-deletion guard held, once you checked the deployment really removed them)",
      ).env(OPTION_ENV.acceptDeletions),
    )
    .addOption(new Option('--dialect <dialect>', "override the job's response dialect").choices([...DIALECT_NAMES]).env(OPTION_ENV.dialect))
    .addOption(
      new Option('--metrics-file <path>', 'write Prometheus text-format metrics of the run (node_exporter textfile collector; the directory must exist)').env(
        OPTION_ENV.metricsFile,
      ),
    );
  addOutputOptions(addDbOption(cmd)).action(async (jobArg: string, opts: RunOptions) => {
    const log = loggerFor(opts);
    const loaded = await loadJob(jobArg);
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      const summary = await whenDatabaseLost(db, loaded.job.name, () =>
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
          progress: process.stderr.isTTY && !opts.json ? 'bar' : 'lines',
        }),
      );
      if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else printRunSummary(summary, log);
      if (opts.metricsFile) await writeRunMetrics(opts.metricsFile, summary, log);
      process.exitCode = summary.exitCode;
    } finally {
      await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
    }
  });
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
