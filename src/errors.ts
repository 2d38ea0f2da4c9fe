/**
 * Errors that end a command with a specific exit code (contract section 2), and the one place that
 * turns any error into an exit code (`exitCodeOf`) and into one line of text (`errorText`).
 */
export const ExitCode = {
  succeeded: 0,
  failed: 1,
  usage: 2,
  partial: 3,
  locked: 4,
  /**
   * sysexits' EX_TEMPFAIL: the upstream or the database cannot be reached now (refused, timed out, a
   * name that does not resolve, 5xx) before anything was started. Try again later.
   */
  temporaryFailure: 75,
  /** Stopped by SIGINT (Ctrl-C): 128 + 2, what a shell reports for it. The next run resumes. */
  interrupted: 130,
  /** Stopped by SIGTERM (a scheduler, `docker stop`, `timeout`): 128 + 15. The next run resumes. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One row of the exit-code table: what a code means and what a scheduler should do with it. */
export interface ExitCodeRow {
  readonly codes: readonly ExitCode[];
  readonly meaning: string;
  readonly scheduler: string;
}

/**
 * The one exit-code table. Every document's table (README, docs/deploy) and `--help` are generated from
 * it (`npm run docs:exit-codes`, src/cli/exit-code-table.ts); a test fails when one differs.
 */
export const EXIT_CODE_TABLE: readonly ExitCodeRow[] = [
  { codes: [ExitCode.succeeded], meaning: 'succeeded', scheduler: 'nothing' },
  {
    codes: [ExitCode.failed],
    meaning:
      'failed: nothing committed as complete (a crash, every unit failed), the database was lost during the run (one line names it, redacted), or a statement of `run` or `export` ran past `--statement-timeout`. The next run resumes',
    scheduler: 'retry later, a bounded number of times',
  },
  {
    codes: [ExitCode.usage],
    meaning:
      'bad usage, job file or configuration: the message names the field, or the flag or variable a bad value came from. Also an upstream that answers 404/401/403 or speaks another dialect than the job says, a PostgreSQL database that does not exist or refuses the user or password, a server without the TLS that `PGSSLMODE` or `sslmode` requires, a `PGSERVICE` no service file defines, an SQL error in `export --where`, an `--accept-deletions` id that is no run of the job, and a `db copy` target that already holds efa data (without `--replace`)',
    scheduler: '**do not retry**: it fails the same way until someone fixes the job or the environment',
  },
  {
    codes: [ExitCode.partial],
    meaning:
      'partial: some units failed after retries or could not be trusted, the request budget ran out, deletions were held by the mass-deletion guard, or the region answered no object at all. What was fetched is kept; nothing in an untrusted place was marked gone',
    scheduler: 'no immediate retry: the next night sweeps them again; alert if it repeats',
  },
  { codes: [ExitCode.locked], meaning: 'another run of the same job holds the lock (the message names the holder run), another process has the embedded database open (the message names its pid), or another `export --lake` writes the same folder (the message names its pid)', scheduler: 'do not retry: the other run is doing the work' },
  {
    codes: [ExitCode.temporaryFailure],
    meaning:
      'temporary failure (sysexits EX_TEMPFAIL): the upstream or the database cannot be reached now (connection refused, timed out, a host name that does not resolve, every operation answering 5xx) before any run was started, as `run` and `plan --probe` find it, nothing written; or the upstream stopped answering mid-run for longer than `limits.outageWaitS`, the run recorded `stopped` and resumed by the next run',
    scheduler: 'retry later (minutes): an EFA server in its maintenance window, a database restarting',
  },
  {
    codes: [ExitCode.interrupted, ExitCode.terminated],
    meaning: 'stopped by SIGINT, SIGTERM (128 + the signal\'s number): the run is recorded `stopped` with its request count, and the next run resumes it; an export cancels its statement on the server and leaves no file',
    scheduler: 'nothing if you stopped it; else run again',
  },
];

const exitCodes: ReadonlySet<number> = new Set(Object.values(ExitCode));

/** An error that no retry and no other unit can fix: it ends a run at once (isFatal). */
export interface Terminal {
  readonly terminal: true;
}

/** Bad usage, a bad job file or bad configuration: exit 2, with a message naming the field. */
export class ConfigError extends Error implements Terminal {
  override name = 'ConfigError';
  readonly exitCode = ExitCode.usage;
  readonly terminal = true;
  constructor(
    message: string,
    /** The offending field or option, dotted (`sweeps.coord.maxPerRequest`), when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * The database stopped answering (or never did). Before a run was opened nothing was started: exit 75,
 * try again later. During a run: exit 1, and every committed unit is kept, so the next run resumes it.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  readonly exitCode: ExitCode;
  constructor(
    /** The database URL with its password replaced. */
    readonly displayUrl: string,
    /** The job whose next run resumes, when the command was running one. */
    readonly job: string | undefined,
    options: {
      cause: unknown;
      /** The run this command had opened when the database went away; none: nothing was started. */
      runId?: string | undefined;
    },
  ) {
    super(DatabaseUnavailableError.text(displayUrl, job, options), { cause: options.cause });
    this.exitCode = options.runId === undefined ? ExitCode.temporaryFailure : ExitCode.failed;
  }

  private static text(displayUrl: string, job: string | undefined, options: { cause: unknown; runId?: string | undefined }): string {
    const cause = errorText(options.cause);
    if (options.runId === undefined) {
      return `cannot reach the database ${displayUrl} (${cause}): nothing was started${job === undefined ? '' : ` for job ${job}`}; ` +
        'try again later (exit 75), and check that the server runs and that --db / $DATABASE_URL (or PGHOST) names it';
    }
    const resume = job === undefined ? '' : `; nothing committed is lost: the next \`efa-sync run\` of job ${job} resumes run ${options.runId} where this one stopped`;
    return `lost the database ${displayUrl} (${cause})${resume}`;
  }
}

/**
 * The upstream cannot be reached now, before a run was opened: every operation the probe asked was
 * refused, timed out, did not resolve or answered 5xx. Exit 75: nothing was started, try again later.
 */
export class UpstreamUnavailableError extends Error {
  override name = 'UpstreamUnavailableError';
  readonly exitCode = ExitCode.temporaryFailure;
}

/**
 * The process was asked to stop (SIGTERM, SIGINT) while it worked. Everything committed stays; the
 * run is recorded `stopped`, and the next run of the job resumes it. The exit code is the shell's
 * convention, 128 + the signal's number, so a scheduler that sent the signal recognises its own stop.
 */
export class RunStoppedError extends Error implements Terminal {
  override name = 'RunStoppedError';
  readonly exitCode: ExitCode;
  readonly terminal = true;
  constructor(
    readonly signal: 'SIGTERM' | 'SIGINT',
    /** The job whose run stopped, when a run was under way. */
    job: string | undefined,
    /** The run as far as it got, when one was opened: its id, its requests, whether `stopped` was recorded. */
    run?: { readonly runId: string; readonly requests: number; readonly recorded: boolean },
  ) {
    const next = job === undefined ? '' : `; nothing committed is lost: the next \`efa-sync run\` of job ${job} resumes where this one stopped`;
    const what = run === undefined
      ? `stopped by ${signal}`
      : `run ${run.runId} stopped by ${signal} after ${run.requests} request${run.requests === 1 ? '' : 's'}${run.recorded ? ' (recorded as stopped)' : ''}`;
    super(`${what}: requests and database statements cancelled${next}`);
    this.exitCode = signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
  }
}

/**
 * A database statement ran past the run's statement_timeout and the server cancelled it: exit 1, and
 * the run is left to resume (what was committed stays). Says what to change.
 */
export class StatementTimeoutError extends Error {
  override name = 'StatementTimeoutError';
  readonly exitCode = ExitCode.failed;
  constructor(timeoutMs: number | undefined, job: string | undefined, options: { cause: unknown }) {
    const limit = timeoutMs === undefined ? 'the statement timeout' : `the statement timeout of ${Math.round(timeoutMs / 1000)} s`;
    const resume = job === undefined ? '' : `; nothing committed is lost: the next \`efa-sync run\` of job ${job} resumes where this one stopped`;
    super(
      `a database statement ran longer than ${limit} and the server cancelled it${resume}. ` +
        'If the database is busy or slow tonight, raise --statement-timeout / $EFA_STATEMENT_TIMEOUT (0 = no limit); ' +
        'if it happens again on a quiet database, run with --verbose and report the statement (ANALYZE the efa tables first)',
      options,
    );
  }
}

/** PostgreSQL's own cancel of a statement that ran past statement_timeout (SQLSTATE 57014, "statement timeout"). */
export function isStatementTimeout(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === '57014' && /statement timeout/i.test(e.message)) return true;
  }
  return false;
}

/**
 * The exit code an error ends a command with: its own `exitCode` when it carries one of the
 * contract's codes (ConfigError, LockedError, the EFA and probe errors), else 1.
 */
export function exitCodeOf(error: unknown): ExitCode {
  const code = (error as { exitCode?: unknown } | null | undefined)?.exitCode;
  return typeof code === 'number' && exitCodes.has(code) ? (code as ExitCode) : ExitCode.failed;
}

/**
 * One line for logs, run records and the CLI's last word. Messages of our named errors already say
 * what and where; a cause is appended when the message does not contain it. Node's network errors
 * can have an empty message (pg's AggregateError for a refused connection on ::1 and 127.0.0.1):
 * their parts or their code stand in.
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return thrownValueText(error);
  const own = ownText(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const causeText = ownText(cause);
    if (causeText && !own.includes(causeText)) return own ? `${own}: ${causeText}` : causeText;
  }
  return own || error.name;
}

/**
 * A thrown value that is no Error (a library may throw a plain object, as PGlite does for a data
 * directory another process holds): its message or code, else its JSON, never "[object Object]".
 */
function thrownValueText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const { message, code } = value as { message?: unknown; code?: unknown };
  if (typeof message === 'string' && message !== '') return typeof code === 'string' ? `${message} (${code})` : message;
  try {
    const json = JSON.stringify(value);
    if (json !== undefined && json !== '{}') return json.length > 500 ? `${json.slice(0, 500)}…` : json;
  } catch {
    // A cycle: fall through to the constructor's name.
  }
  return `a thrown ${value.constructor?.name ?? 'object'} without a message`;
}

function ownText(error: Error): string {
  if (error.message) return error.message;
  if (error instanceof AggregateError) {
    const parts = [...new Set(error.errors.map((e) => (e instanceof Error ? ownText(e) : String(e))).filter(Boolean))];
    if (parts.length > 0) return parts.join('; ');
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

/**
 * Errors that no retry and no other tile can fix (the deployment answers in a projected grid, a
 * bad configuration, a run taken over by another process, a stop signal): they end the run at once.
 * Each such error says so itself (`terminal`); nothing is inferred from its exit code or its name.
 */
export function isFatal(error: unknown): boolean {
  return (error as Partial<Terminal> | null | undefined)?.terminal === true;
}
