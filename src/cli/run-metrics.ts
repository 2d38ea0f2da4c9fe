import { readLastSuccess, renderPrometheusMetrics, writeMetricsFile } from '../report/metrics.js';
import { pushMetrics, pushgatewayGroupUrl, readPushedLastSuccess } from '../report/metrics-push.js';
import { ConfigError, errorText } from '../errors.js';
import type { RunSummary } from '../run/index.js';
import { redactUrl } from '../util/redact.js';
import type { Logger } from '../util/log.js';

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

/** `--metrics-push-url`: checked when parsed, so a typo is exit 2 before a night is swept. */
export function pushUrl(value: string): string {
  try {
    pushgatewayGroupUrl(value, 'job');
  } catch {
    throw new ConfigError(`--metrics-push-url: expected the http(s) URL of a Pushgateway (http://pushgateway:9091), got "${value}"`, 'metricsPushUrl');
  }
  return value;
}

/**
 * The metrics of a run pushed to a Pushgateway. As with the file, a gateway that is down or
 * refuses is a warning and the run keeps its exit code: the data is in the database, and a
 * CronJob must not sweep again because its metrics did not arrive. The last-success time of a
 * run that did not succeed is carried over from the metrics file, else from the gateway.
 */
export async function pushRunMetrics(url: string, summary: RunSummary, log: Logger, metricsFile?: string): Promise<boolean> {
  try {
    const previous =
      summary.status === 'succeeded'
        ? undefined
        : ((metricsFile ? await readLastSuccess(metricsFile, summary.job) : undefined) ?? (await readPushedLastSuccess(url, summary.job)));
    await pushMetrics(url, summary.job, renderPrometheusMetrics(summary, summary.job, previous === undefined ? {} : { previousLastSuccessS: previous }));
    log.debug(`pushed the metrics of run ${summary.runId} to ${pushgatewayGroupUrl(url, summary.job).origin}`);
    return true;
  } catch (error) {
    log.warn(`could not push the metrics to ${redactUrl(url)}: ${errorText(error)}; the run's exit code ${summary.exitCode} stands`, { metricsPushUrl: redactUrl(url) });
    return false;
  }
}
