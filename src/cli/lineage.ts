import { randomUUID } from 'node:crypto';
import { errorText } from '../errors.js';
import { resolveHeaders, type Job } from '../job/index.js';
import type { OpenedRunInfo } from '../run/kind.js';
import {
  createLineageEmitter,
  DEFAULT_NAMESPACE,
  lineageEvent,
  lineageTarget,
  type LineageEmitter,
  type LineageEventType,
  type LineageRun,
} from '../run/openlineage.js';
import type { RunSummary } from '../run/summary.js';
import type { Logger } from '../util/log.js';
import { collectSecrets } from '../util/redact.js';
import { sourceOf } from '../relations/index.js';

/** The OpenLineage events of one `run` command: START when the run opens, then one end event. */
export interface RunLineage {
  readonly onOpened: (opened: OpenedRunInfo) => void;
  /** COMPLETE for a run with its data committed (succeeded, partial), FAIL for a failed one. */
  ended(summary: RunSummary): Promise<void>;
  /** FAIL for an error that ended the command (START first when the run never opened). */
  failed(error: unknown): Promise<void>;
  /** ABORT: the run was stopped by a signal and left to be resumed. */
  aborted(): Promise<void>;
}

/**
 * `--openlineage-url` / $OPENLINEAGE_URL for one run. START is sent without holding the run up; every
 * later event waits for it first (receivers order a run's events by arrival), each bounded by the
 * emitter's timeout, so a receiver that is down costs the run at most a few seconds.
 */
export function runLineage(o: { url: string; optionName: string; job: Job; dbUrl: string; log: Logger; env?: NodeJS.ProcessEnv }): RunLineage {
  const env = o.env ?? process.env;
  const emitter: LineageEmitter = createLineageEmitter(lineageTarget(o.url, o.optionName), o.log, env);
  const namespace = env['OPENLINEAGE_NAMESPACE']?.trim() || DEFAULT_NAMESPACE;
  const headers = resolveHeaders(o.job);
  let run: LineageRun | undefined;
  let started: Promise<unknown> = Promise.resolve();
  let ended = false;
  const send = async (type: LineageEventType, extra: Parameters<typeof lineageEvent>[2] = {}): Promise<void> => {
    if (!run || ended) return;
    ended = true;
    await started;
    await emitter.emit(lineageEvent(type, run, extra));
  };
  const openedAs = (info: Pick<OpenedRunInfo, 'runId' | 'source' | 'job' | 'secrets'>): void => {
    run = { job: info.job, source: info.source, runId: info.runId, dbUrl: o.dbUrl, secrets: info.secrets, namespace };
    started = emitter.emit(lineageEvent('START', run));
  };
  return {
    onOpened: openedAs,
    async ended(summary) {
      await send(summary.status === 'failed' ? 'FAIL' : 'COMPLETE', { summary });
    },
    async failed(error) {
      // A run that failed before it was opened (the upstream or the database unreachable) still
      // tells the receiver it was tried: a START and a FAIL under a run id of its own.
      if (!run) openedAs({ runId: `unopened-${randomUUID()}`, source: sourceOf(o.job), job: o.job, secrets: collectSecrets({ urls: [o.job.baseUrl], headers, secretNames: Object.keys(headers) }) });
      await send('FAIL', { error: errorText(error) });
    },
    async aborted() {
      await send('ABORT');
    },
  };
}
