import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import type { DialectName } from '../efa/dialects/index.js';
import { dbUrlChoice, openDb, PG_ENV_VARS, type DbUrlSource } from '../db/index.js';
import { isSnapshotJob, loadJob, regionOrderHint, type ResolvedRegion } from '../job/index.js';
import { runJob, stoppedRunSummary, type LiveRun, type RunSummary } from '../run/index.js';
import { recordStopped } from '../db/runs.js';
import { ConfigError, errorText, ExitCode, RunStoppedError } from '../errors.js';
import { NOW_ENV, parseNow } from './now.js';
import { logRunEnd, printRunSummary } from './run-report.js';
import { pushRunMetrics, pushUrl, writeRunMetrics } from './run-metrics.js';
import { stderrLogOutput, type Logger } from '../util/log.js';
import { addCommonOptions, defaultStatementTimeoutS, loggerFor, OPTION_ENV, type CommonOptions } from './common.js';
import { whenDatabaseLost } from './database.js';
import { stopOnSignal, type RunAlreadyEnded } from './stop.js';
import { runLineage } from './lineage.js';
import { exitCodeHelp } from './exit-code-table.js';
import { acceptDeletionsFrom, checkAcceptedRun } from './accept-deletions.js';
import { redactUrl } from '../util/redact.js';
import { alreadyStoredLine, checkSnapshotTime, DEFAULT_RETENTION_DAYS, snapshotsStoredAt } from '../sweep/snapshot/when.js';
import { BOUNDED_HEAP_GROWING_PERCENT, boundHeapGrowth } from '../util/heap-growth.js';

interface RunOptions extends CommonOptions {
  dialect?: DialectName;
  metricsFile?: string;
  metricsPushUrl?: string;
  rps?: number;
  concurrency?: number;
  full?: boolean;
  statementTimeout?: number;
  acceptDeletions?: string | boolean;
  now?: string;
  openlineageUrl?: string;
}

/**
 * Opens the database, saying so first when it is the embedded one: PGlite loads PostgreSQL compiled
 * to WebAssembly, and a first start of a version (initdb) takes about 15 s in which nothing else would be printed.
 */
async function openDbSaying(choice: { url: string; from: DbUrlSource }, log: Logger, options: Parameters<typeof openDb>[1] = {}): Promise<Awaited<ReturnType<typeof openDb>>> {
  const { url } = choice;
  // Which database, and why: an operator who set PGHOST must see that it was honoured (never the password).
  if (choice.from === 'PG environment') {
    log.info(`database from libpq's environment (${PG_ENV_VARS.filter((name) => (process.env[name] ?? '') !== '').join(', ')}): ${redactUrl(url)}`);
  }
  if (url.startsWith('pglite:') && url !== 'pglite:memory') {
    const dir = url.slice('pglite:'.length);
    const first = !existsSync(join(dir, 'PG_VERSION'));
    // A new database is a copy of the migrated template (src/db/pglite-template.ts); only the first
    // one of an installed version builds that template (initdb, PostGIS, every migration).
    log.info(`opening the embedded database ${dir}${first ? ' (first start: creating it; the first database of this efa-sync version takes 15 s or more)' : ''}…`);
  }
  return openDb(url, options);
}

export function registerRun(program: Command): void {
  const cmd = program
    .command('run <job>')
    .description('sweep one job (path to a .json/.ts/.js job file, or a job name under jobs/)')
    .addOption(
      new Option('--now <iso>', 'snapshot jobs: the time the snapshot is taken and stored as (ISO 8601 with a zone, e.g. 2026-11-24T08:00:00+01:00), for backfills and demos against `sim --clock`').env(
        NOW_ENV,
      ),
    )
    .addOption(
      new Option('--metrics-push-url <url>', 'push the metrics of the run to a Prometheus Pushgateway (HTTP PUT to <url>/metrics/job/<job>)')
        .argParser(pushUrl)
        .env(OPTION_ENV.metricsPushUrl),
    )
    // What a scheduler acts on: the one exit-code table (src/errors.ts).
    .addHelpText('after', `\n${exitCodeHelp()}`);
  addCommonOptions(cmd, ['baseUrl', 'rps', 'concurrency', 'full', 'dialect', 'metricsFile', 'statementTimeout', 'acceptDeletions', 'openlineageUrl', 'db', 'json', 'log']).action(
    async (jobArg: string, opts: RunOptions) => {
      const log = loggerFor(opts);
      // A night of a million pins must not let its garbage decide the machine's memory (issue 17).
      if (boundHeapGrowth()) log.debug(`V8 grows the heap by ${BOUNDED_HEAP_GROWING_PERCENT} % of what a collection keeps`);
      // Named as the operator gave it: on the command line or in the environment.
      const nowName = cmd.getOptionValueSource('now') === 'env' ? NOW_ENV : '--now';
      const takenAt = opts.now === undefined ? undefined : parseNow(opts.now, nowName);
      const acceptDeletions = acceptDeletionsFrom(opts.acceptDeletions, cmd.getOptionValueSource('acceptDeletions'), log);
      const loaded = await loadJob(jobArg, process.cwd(), { baseUrl: opts.baseUrl });
      log.info(`job ${loaded.job.name} loaded from ${loaded.file}`);
      if (takenAt !== undefined && !isSnapshotJob(loaded.job)) {
        throw new ConfigError(
          `${nowName}: job ${loaded.job.name} is a nightly job; only a snapshot job (sweeps.vehicles or sweeps.parking) takes a time. Unset ${nowName}${nowName === NOW_ENV ? '' : ` (and ${NOW_ENV})`} for this job.`,
          nowName,
        );
      }
      if (takenAt !== undefined) checkSnapshotTime(takenAt, loaded.job.snapshots?.retentionDays ?? DEFAULT_RETENTION_DAYS, nowName);
      const statementTimeoutS = opts.statementTimeout ?? defaultStatementTimeoutS;
      const dbChoice = dbUrlChoice(opts.db);
      const dbUrl = dbChoice.url;
      const lineage =
        opts.openlineageUrl === undefined
          ? undefined
          : runLineage({
              url: opts.openlineageUrl,
              optionName: cmd.getOptionValueSource('openlineageUrl') === 'env' ? OPTION_ENV.openlineageUrl : '--openlineage-url',
              job: opts.baseUrl === undefined ? loaded.job : { ...loaded.job, baseUrl: opts.baseUrl },
              dbUrl,
              log,
            });
      let db: Awaited<ReturnType<typeof openDbSaying>>;
      try {
        db = await openDbSaying(dbChoice, log, statementTimeoutS > 0 ? { statementTimeoutMs: Math.round(statementTimeoutS * 1000) } : {});
        // Before any request: a run id that names no run of this job is a typo, not a night's work.
        await checkAcceptedRun(db, loaded.job.name, acceptDeletions).catch(async (error: unknown) => {
          await db.close().catch(() => undefined);
          throw error;
        });
      } catch (error) {
        await lineage?.failed(error);
        throw error;
      }
      const controller = new AbortController();
      let live: LiveRun | undefined;
      let ended: { readonly status: string; readonly exitCode: number } | undefined;
      const stop = stopOnSignal({
        db, job: loaded.job.name, log, debug: opts.debug ?? false, controller,
        record: async (signal) =>
          ended !== undefined && live !== undefined
            ? alreadyEnded(signal, live.run.runId, ended)
            : recordRunStop(signal, { live, db, job: loaded.job.name, json: opts.json ?? false, log }),
        ...(lineage ? { onStop: () => lineage.aborted() } : {}),
      });
      try {
        // A snapshot the job already stored at that instant: said before the upstream is asked, exit 0.
        const stored = takenAt === undefined ? [] : await snapshotsStoredAt(db, loaded.job, takenAt);
        const storedLine = takenAt === undefined ? undefined : alreadyStoredLine(loaded.job.name, takenAt, stored);
        if (takenAt !== undefined && storedLine !== undefined) {
          log.info(storedLine);
          if (opts.json) process.stdout.write(`${JSON.stringify({ job: loaded.job.name, status: 'already-stored', takenAt: takenAt.toISOString(), stored, exitCode: 0 })}\n`);
          return;
        }
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
              ...(acceptDeletions !== undefined ? { acceptDeletions } : {}),
              dialect: opts.dialect,
              signal: controller.signal,
              onOpened: (opened) => {
                live = opened;
                lineage?.onOpened(opened);
              },
              onEnded: (end) => (ended = end),
              progress: stderrLogOutput().interactive && !opts.json ? 'bar' : 'lines',
              ...(takenAt !== undefined ? { takenAt } : {}),
              // The user has waited since the process started (the job, the database's opening and
              // migrations): durationS counts from there, not from the run's row.
              waitingSinceMs: 0,
            }),
            () => live?.run.runId,
          );
        } catch (error) {
          // A stop signal says its one line and exits; anything else that ends the run (a lost lease,
          // a statement timeout, a lost database) leaves no statement of it running on the server.
          if (stop.stopping) await stop.exited;
          await db.stop().catch(() => undefined);
          await lineage?.failed(error);
          throw error;
        }
        if (stop.stopping) await stop.exited;
        summary = withEmptyRegionVerdict(summary, loaded.region, log);
        await lineage?.ended(summary);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(summary)}\n`);
          logRunEnd(summary, log);
        } else printRunSummary(summary, log);
        if (opts.metricsFile) await writeRunMetrics(opts.metricsFile, summary, log);
        if (opts.metricsPushUrl) await pushRunMetrics(opts.metricsPushUrl, summary, log, opts.metricsFile);
        process.exitCode = summary.exitCode;
      } finally {
        stop.dispose();
        await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
      }
    },
  );
}

/**
 * A signal after the run's end was committed (during upkeep, the metrics, a hang on the way out):
 * the end stands in efa.runs and in the exit code; the signal only cut the rest short.
 */
function alreadyEnded(signal: 'SIGTERM' | 'SIGINT', runId: string, end: { readonly status: string; readonly exitCode: number }): RunAlreadyEnded {
  return {
    line: `${signal} after run ${runId} had ended ${end.status}: its outcome stands (the upkeep after it is redone by the next run); exit ${end.exitCode}`,
    exitCode: end.exitCode,
  };
}

/**
 * A stop signal's end of a run: the run recorded `stopped` with its requests (resumable), and with
 * `--json` its summary on stdout like any other run's. Returns the error whose line ends the command.
 */
async function recordRunStop(
  signal: 'SIGTERM' | 'SIGINT',
  o: { readonly live: LiveRun | undefined; readonly db: Awaited<ReturnType<typeof openDb>>; readonly job: string; readonly json: boolean; readonly log: Logger },
): Promise<RunStoppedError> {
  const { live } = o;
  if (live === undefined) return new RunStoppedError(signal, o.job);
  const requests = live.requests();
  const what = new RunStoppedError(signal, o.job);
  let durationS: number | undefined;
  try {
    durationS = await o.db.lastWord((k) => recordStopped(k, live.run, { requests, error: what.message }));
  } catch (error) {
    o.log.debug(`could not record run ${live.run.runId} as stopped: ${errorText(error)}; it stays running and is resumed all the same`);
  }
  const stopped = new RunStoppedError(signal, o.job, { runId: live.run.runId, requests, recorded: durationS !== undefined });
  if (o.json) {
    const summary = stoppedRunSummary({
      runId: live.run.runId, job: o.job, source: live.source, dialect: live.dialect(), exitCode: stopped.exitCode, resumed: live.resumed,
      durationS: durationS ?? Math.round((Date.now() - live.run.startedAt.getTime()) / 100) / 10,
      requests, requestsByOperation: live.requestsByOperation(), retries: live.retries(), db: o.db.displayUrl, error: stopped.message,
    });
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  }
  return stopped;
}

/**
 * A CoordInfo sweep of the whole region that saw no object at all is no success: the region is most
 * likely not where the operator meant (a bbox written [lat, lon, …] is often a valid box elsewhere).
 * Exit 3 at least, with the order a bbox is read in and the swapped box.
 */
function withEmptyRegionVerdict(summary: RunSummary, region: ResolvedRegion, log: Logger): RunSummary {
  // Capped units answered full boxes: the region answered plenty (however untrusted), and the bbox hint would mislead.
  if (summary.coord === undefined || summary.coord.pins > 0 || summary.status === 'failed' || summary.capped.length > 0) return summary;
  log.warn(`coordInfo: the region answered no object at all in ${summary.coord.requests} request(s): ${regionOrderHint(region)}`);
  return summary.exitCode === ExitCode.succeeded ? { ...summary, exitCode: ExitCode.partial } : summary;
}
