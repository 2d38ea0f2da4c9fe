import type { RateHistory } from '../run/client.js';
import { PROBE_OPERATION, type RunSummary } from '../run/index.js';
import type { Logger } from '../util/log.js';

/**
 * The human end of every run on stderr, `--json` or not (journald and cron mail see it): "run N
 * <status> in …", and why a run failed or is partial.
 */
export function logRunEnd(summary: RunSummary, log: Logger): void {
  const probe = summary.requestsByOperation[PROBE_OPERATION] ?? 0;
  const down = summary.outage === undefined ? '' : `, ${summary.outage.probes} while it was down (${summary.outage.waitedS} s waited)`;
  log.info(`run ${summary.runId} ${summary.status} in ${summary.durationS}s: ${summary.requests} requests (${summary.retries} retries${probe > 0 ? `, ${probe} probing the upstream` : ''}${down})`);
  // Why a run failed or is partial: the same line as efa.runs.error (redacted there already).
  if (summary.error !== undefined && summary.status !== 'succeeded') {
    const line = `run ${summary.runId} ${summary.status}: ${summary.error}`;
    if (summary.status === 'failed') log.error(line);
    else log.warn(line);
  }
}

export function printRunSummary(summary: RunSummary, log: Logger): void {
  const rel = Object.entries(summary.relations)
    .map(([k, s]) => `${k} +${s.inserted} ~${s.updated} -${s.deleted} =${s.unchanged}`)
    .join(', ');
  logRunEnd(summary, log);
  if (summary.rate) log.info(rateLine(summary.rate, summary.retries));
  if (rel) log.info(`rows: ${rel}`);
  if (summary.coord) {
    log.info(`coordInfo: ${summary.coord.requests} requests for ${summary.coord.pins} pins; floor ceil(pins/max) = ${summary.coord.floor} (${summary.coord.ratio}x)`);
  }
  // One cause, one warning: the verdict above already counts the capped units; which they are is detail.
  if (summary.capped.length > 0) {
    const first = summary.capped.slice(0, 5).map((c) => `${c.unit} (${c.hits} hits)`).join(', ');
    log.info(`capped tiles: ${summary.capped.length}${summary.capped.length > 5 ? `, the first ${first}` : `: ${first}`}; efa.run_tiles lists them all`);
  }
  for (const f of summary.failures.slice(0, 10)) log.warn(`failed ${f.operation} ${f.unit}: ${f.error}`);
  if (summary.failures.length > 10) log.warn(`… and ${summary.failures.length - 10} more failures (efa.run_tiles has them all)`);
}

/** The one line about the adaptive rate and retries (each change is a debug line). */
export function rateLine(rate: RateHistory, retries: number): string {
  const rps = (n: number): string => (Math.round(n * 10) / 10).toString();
  const moves = rate.changes === 0 ? `steady at ${rps(rate.ceiling)} rps` : `${rate.changes} change${rate.changes === 1 ? '' : 's'}, between ${rps(rate.lowest)} and ${rps(rate.highest)} rps`;
  return `rate: ${moves}; ${retries} retr${retries === 1 ? 'y' : 'ies'}`;
}
