import type { Db, OpenDbOptions } from '../db/index.js';
import { errorText, ExitCode } from '../errors.js';
import { removePendingTemps } from '../export/index.js';
import type { Logger } from '../util/log.js';
import { defaultStatementTimeoutS } from './common.js';

/*
 * How an export (one file or the lake) ends on a signal, and the statement timeout its statements
 * run under: the same bounds as a run's.
 */

/** How long cancelling the export's statement on the server may take before the process exits anyway. */
const cancelGraceMs = 3_000;

/**
 * SIGINT/SIGTERM while an export runs: its statement is cancelled on the server (a PostgreSQL server
 * otherwise goes on computing a --where over every row for minutes after the client has gone), its
 * temporary file (`.name.<pid>.<hex>.tmp`, and a FlatGeobuf's side file) is removed, one line says
 * so, and the process exits 130 or 143. A second signal exits at once.
 */
export function stopExportOnSignal(db: Db, log: Logger, what: string, removeTemps: () => void = removePendingTemps): () => void {
  let stopping = false;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    const code = signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
    if (stopping) process.exit(code);
    stopping = true;
    removeTemps();
    let timer: NodeJS.Timeout | undefined;
    const cancelled = db.stop().then(
      () => 'its database statement is cancelled',
      (e: unknown) => `cancelling its database statement failed: ${errorText(e)}`,
    );
    void Promise.race([cancelled, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('its database statement could not be cancelled in time'), cancelGraceMs)))]).then((said) => {
      clearTimeout(timer);
      // A file operation already in flight on libuv's threadpool (a side file being created) can land
      // after the first removal: removed once more before the exit.
      removeTemps();
      log.error(`stopped by ${signal}: ${what} was not written (its temporary file is removed); ${said}`);
      process.exit(code);
    });
  };
  const onInt = (): void => onSignal('SIGINT');
  const onTerm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}

/** The statement_timeout of an export's statements, as for `run` (--statement-timeout, 0 = none). */
export function exportDbOptions(opts: { statementTimeout?: number }): OpenDbOptions {
  const seconds = opts.statementTimeout ?? defaultStatementTimeoutS;
  return seconds > 0 ? { statementTimeoutMs: Math.round(seconds * 1000) } : {};
}
