import type { Db } from '../db/index.js';
import { RunStoppedError } from '../errors.js';
import type { Logger } from '../util/log.js';
import { reportFailure } from './common.js';

/** How long cancelling the database's statements may take before the process exits anyway. */
const cancelGraceMs = 3_000;

export interface StopOnSignal {
  /** Set once SIGTERM or SIGINT arrived: the process is about to exit, with one line said. */
  readonly stopping: boolean;
  /** Never settles: what the command waits on once stopping, so it says and does nothing more. */
  readonly exited: Promise<never>;
  dispose(): void;
}

/**
 * SIGTERM (a scheduler, `docker stop`, `timeout`) and SIGINT (Ctrl-C) during a run: no connection
 * is handed out any more, the run's requests are aborted, every statement the run has on the server
 * is cancelled (a server otherwise goes on with a statement whose client has gone), one line says
 * why the run stopped, and the process exits 143 or 130. Nothing is finalised: the run stays
 * running, and the next run of the job resumes it. A second signal exits at once.
 */
export function stopOnSignal(o: {
  readonly db: Db;
  readonly job: string;
  readonly log: Logger;
  readonly debug: boolean;
  readonly controller: AbortController;
  /** Said before the process exits (OpenLineage's ABORT), within the same grace as the cancelling. */
  readonly onStop?: () => Promise<unknown>;
}): StopOnSignal {
  let stopping = false;
  const onSignal = (signal: 'SIGTERM' | 'SIGINT'): void => {
    const stopped = new RunStoppedError(signal, o.job);
    if (stopping) process.exit(stopped.exitCode);
    stopping = true;
    // First the database (it stops handing out connections at once, so nothing that fails from here
    // on can commit a "failed" run), then the requests.
    const cancelled = Promise.all([o.db.stop().catch(() => undefined), o.onStop?.().catch(() => undefined)]);
    o.controller.abort(stopped);
    let timer: NodeJS.Timeout | undefined;
    void Promise.race([cancelled, new Promise((resolve) => (timer = setTimeout(resolve, cancelGraceMs)))]).then(() => {
      clearTimeout(timer);
      reportFailure(stopped, o.log, { debug: o.debug });
      process.exit(stopped.exitCode);
    });
  };
  const onTerm = (): void => onSignal('SIGTERM');
  const onInt = (): void => onSignal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  return {
    get stopping() {
      return stopping;
    },
    exited: new Promise<never>(() => undefined),
    dispose: () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
    },
  };
}
