import type { Db } from '../db/index.js';
import { errorText, RunStoppedError } from '../errors.js';
import type { Logger } from '../util/log.js';
import { reportFailure } from './common.js';

/** How long cancelling the database's statements may take before the process exits anyway. */
const cancelGraceMs = 3_000;
/** And recording the stop after it (a lock wait of at most 2 s on PostgreSQL, see Db.lastWord). */
const recordGraceMs = 3_000;

/** A signal that came after the run's end was committed: the end stands, said in one line. */
export interface RunAlreadyEnded {
  readonly line: string;
  readonly exitCode: number;
}

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
 * is cancelled (a server otherwise goes on with a statement whose client has gone), `record` writes
 * the run's stop (status `stopped`, its requests) and prints what the command owes (the `--json`
 * summary), one line says why the run stopped, and the process exits 143 or 130. Nothing else is
 * finalised: the next run of the job resumes it. A second signal exits at once.
 */
export function stopOnSignal(o: {
  readonly db: Db;
  readonly job: string;
  readonly log: Logger;
  readonly debug: boolean;
  readonly controller: AbortController;
  /** Said before the process exits (OpenLineage's ABORT), within the same grace as the cancelling. */
  readonly onStop?: () => Promise<unknown>;
  /**
   * After the statements were cancelled: records the stop; returns the error the last line reports, or,
   * for a run whose end was already committed, that end (its line and its own exit code: a signal after
   * the end never rewrites the outcome).
   */
  readonly record?: (signal: 'SIGTERM' | 'SIGINT') => Promise<RunStoppedError | RunAlreadyEnded>;
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
    const recorded = cancelled.then(() => o.record?.(signal) ?? stopped).catch((e: unknown) => {
      o.log.debug(`recording the stop failed: ${errorText(e)}`);
      return stopped;
    });
    let timer: NodeJS.Timeout | undefined;
    // Within the grace: a stop that cannot be recorded in time leaves the run running, resumed all the same.
    void Promise.race([recorded, new Promise<RunStoppedError>((resolve) => (timer = setTimeout(() => resolve(stopped), cancelGraceMs + recordGraceMs)))]).then((last) => {
      clearTimeout(timer);
      if (last instanceof RunStoppedError) reportFailure(last, o.log, { debug: o.debug });
      else o.log.info(last.line, { exitCode: last.exitCode });
      process.exit(last.exitCode);
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

/**
 * A server command's end (serve, sim): resolves once SIGTERM or SIGINT arrived and `stop` finished.
 * Call it before printing that the server is ready: a signal sent on reading that line (a supervisor,
 * a script, a test) then meets these handlers, not Node's default action, which ends the process
 * uncleanly. `guardMs`: the process exits 1 if stopping takes longer (only against the unforeseen).
 */
export function untilStopped(stop: () => Promise<unknown>, guardMs?: number): Promise<void> {
  return new Promise<void>((done) => {
    const onSignal = (): void => {
      if (guardMs !== undefined) setTimeout(() => process.exit(1), guardMs).unref();
      void stop().then(() => done());
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
