import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FILE_TARGET_TIMEOUT_MS, readBounded, writeBounded } from '../util/bounded-file.js';
import type { RunSummary } from '../run/index.js';

/**
 * The run summary in the Prometheus text exposition format, for node_exporter's textfile
 * collector (`--metrics-file`). Every sample carries `efa_job`, the job's name. It was `job` until
 * schema version 22: Prometheus keeps `job` for the scrape job (node_exporter's), so the textfile
 * collector's samples arrived as `exported_job`; a label cannot carry both names. Metrics:
 *
 * - `efa_sync_run_status{efa_job,status}`: 1 for the run's status, 0 for the others
 *   (`succeeded`, `partial`, `failed`, `stopped`: an outage past limits.outageWaitS, exit 75), so `efa_sync_run_status{status="succeeded"} == 0` alerts.
 * - `efa_sync_run_exit_code{efa_job}`: the CLI exit code (0 succeeded, 1 failed, 3 partial).
 * - `efa_sync_run_id`, `efa_sync_run_duration_seconds`, `efa_sync_run_last_timestamp_seconds` (when it ended).
 * - `efa_sync_run_last_success_timestamp_seconds{efa_job}`: when this run succeeded, its end; after a
 *   run that did not, the previous value when the caller passes it (see `readLastSuccess`), else absent.
 * - `efa_sync_last_run_requests{efa_job,operation}`, `efa_sync_last_run_retries{efa_job}`: requests of the run,
 *   retries included, and how many of them were retries.
 * - `efa_sync_units{efa_job,operation,status}`: units of work (tiles, stops, circles) by outcome:
 *   done, split, capped, failed. A failed unit failed after all its retries.
 * - `efa_sync_rows{efa_job,relation,op}`: rows inserted, updated, deleted, unchanged per relation.
 * - `efa_sync_last_run_outage_seconds{efa_job}`: when the upstream stopped answering mid-run, the seconds
 *   waited for it; its probes are `efa_sync_last_run_requests{operation="outageProbe"}`.
 * - `efa_sync_rejects{efa_job}`, and `efa_sync_coord_request_floor_ratio{efa_job}` (CoordInfo requests over
 *   the physical floor) when CoordInfo was swept.
 *
 * Every series is a gauge of the last run. The request counts were `efa_sync_requests_total` and
 * `efa_sync_request_retries_total`, typed counter; but a counter must only grow over the life of
 * what exposes it, and these started again at every run (each run is a new process), so `rate()`
 * over them read every night as a reset. They are named and typed for what they are now.
 */
export function renderPrometheusMetrics(
  summary: RunSummary,
  job: string,
  opts: { readonly now?: Date; readonly previousLastSuccessS?: number } = {},
): string {
  const nowS = Math.round((opts.now ?? new Date()).getTime() / 1000);
  const out: string[] = [];
  const metric = (name: string, type: 'gauge', help: string, samples: readonly (readonly [Record<string, string>, number])[]): void => {
    if (samples.length === 0) return;
    out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) out.push(`${name}{${labelText({ efa_job: job, ...labels })}} ${valueText(value)}`);
  };
  const statuses = ['succeeded', 'partial', 'failed', 'stopped'] as const;
  metric('efa_sync_run_status', 'gauge', 'Outcome of the last run: 1 for its status, 0 for the others.',
    statuses.map((s) => [{ status: s }, summary.status === s ? 1 : 0]));
  metric('efa_sync_run_exit_code', 'gauge', 'Exit code of the last run (0 succeeded, 1 failed, 3 partial).', [[{}, summary.exitCode]]);
  metric('efa_sync_run_id', 'gauge', 'efa.runs.run_id of the last run.', [[{}, Number(summary.runId)]]);
  metric('efa_sync_run_duration_seconds', 'gauge', 'Wall-clock duration of the last run.', [[{}, summary.durationS]]);
  metric('efa_sync_run_last_timestamp_seconds', 'gauge', 'Unix time the last run ended, whatever its outcome.', [[{}, nowS]]);
  const lastSuccess = summary.status === 'succeeded' ? nowS : opts.previousLastSuccessS;
  metric('efa_sync_run_last_success_timestamp_seconds', 'gauge', 'Unix time the last successful run ended.',
    lastSuccess === undefined ? [] : [[{}, lastSuccess]]);
  metric('efa_sync_last_run_requests', 'gauge', 'HTTP requests sent to the EFA API during the last run, retries included.',
    Object.entries(summary.requestsByOperation).sort().map(([operation, n]) => [{ operation }, n]));
  metric('efa_sync_last_run_retries', 'gauge', 'Requests of the last run that were retries.', [[{}, summary.retries]]);
  metric('efa_sync_units', 'gauge', 'Units of work of the last run by outcome; failed means failed after all retries.', unitSamples(summary));
  metric('efa_sync_rows', 'gauge', 'Rows written by the last run per relation and operation.', rowSamples(summary.relations));
  metric('efa_sync_rejects', 'gauge', 'Records of the last run that could not be normalised (efa.rejects).',
    [[{}, summary.rejects]]);
  // Present once the upstream went down during the run: the seconds waited for it (its probes are in
  // efa_sync_last_run_requests{operation="outageProbe"}).
  if (summary.outage) metric('efa_sync_last_run_outage_seconds', 'gauge', 'Seconds the last run waited for an upstream that had stopped answering.', [[{}, summary.outage.waitedS]]);
  if (summary.coord) metric('efa_sync_coord_request_floor_ratio', 'gauge', 'CoordInfo requests over ceil(pins / maxPerRequest).', [[{}, summary.coord.ratio]]);
  return `${out.join('\n')}\n`;
}

type Sample = readonly [Record<string, string>, number];

function unitSamples(summary: RunSummary): Sample[] {
  const units = Object.entries(summary.units);
  if (units.length > 0) {
    return units.sort(([a], [b]) => a.localeCompare(b)).flatMap(([operation, u]) =>
      (['done', 'incomplete', 'split', 'capped', 'failed'] as const).map((status): Sample => [{ operation, status }, u[status]]));
  }
  // A summary without unit counters still says what failed.
  const failed = new Map<string, number>();
  for (const f of summary.failures) failed.set(f.operation, (failed.get(f.operation) ?? 0) + 1);
  return [...failed].map(([operation, n]): Sample => [{ operation, status: 'failed' }, n]);
}

function rowSamples(relations: RunSummary['relations']): Sample[] {
  return Object.entries(relations)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([relation, s]) => (['inserted', 'updated', 'deleted', 'unchanged'] as const).map((op): Sample => [{ relation, op }, s[op]]));
}

/** Label values: backslash, double quote and line feed escaped, as the text format requires. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const labelText = (labels: Record<string, string>): string =>
  Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',');
const valueText = (n: number): string => (Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n));

/**
 * Writes the file atomically: the textfile collector may read at any moment and must never see
 * half a file. The temporary name does not end in `.prom`, so the collector ignores it. The
 * directory is not created: it is the collector's, and a typo in it must show, not grow a tree.
 */
export async function writeMetricsFile(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // Bounded as every file target is (util/bounded-file.ts): a hung mount never holds the run's end.
    await writeBounded(tmp, text, FILE_TARGET_TIMEOUT_MS, 'the metrics file');
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * The last-success time in an earlier metrics file of the job, to carry it over a failed run; a
 * file written before the label was renamed (`job`) is read too.
 */
export async function readLastSuccess(path: string, job: string): Promise<number | undefined> {
  // A FIFO or a device at the path is no earlier metrics file: nothing to carry over, never waited on.
  const text = (await readBounded(path, FILE_TARGET_TIMEOUT_MS, 1024 * 1024, 'the metrics file').catch(() => undefined)) ?? '';
  for (const label of ['efa_job', 'job']) {
    const prefix = `efa_sync_run_last_success_timestamp_seconds{${label}="${escapeLabelValue(job)}"} `;
    const line = text.split('\n').find((l) => l.startsWith(prefix));
    const value = line ? Number(line.slice(prefix.length)) : NaN;
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}
