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
  /** Stopped by SIGINT (Ctrl-C): 128 + 2, what a shell reports for it. The next run resumes. */
  interrupted: 130,
  /** Stopped by SIGTERM (a scheduler, `docker stop`, `timeout`): 128 + 15. The next run resumes. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

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
 * The database stopped answering (or never did): exit 1, a transient failure a scheduler may retry.
 * Every committed unit of the run is kept, so the next run of the job resumes it.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  readonly exitCode = ExitCode.failed;
  constructor(
    /** The database URL with its password replaced. */
    readonly displayUrl: string,
    /** The job whose next run resumes, when the command was running one. */
    readonly job: string | undefined,
    options: { cause: unknown },
  ) {
    const resume = job === undefined ? '' : `; nothing committed is lost: the next \`efa-sync run\` of job ${job} resumes where this one stopped`;
    super(`lost the database ${displayUrl} (${errorText(options.cause)})${resume}`, options);
  }
}

/**
 * The process was asked to stop (SIGTERM, SIGINT) while it worked. Everything committed stays; the
 * run is left running, so the next run of the job resumes it. The exit code is the shell's
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
  ) {
    const next = job === undefined ? '' : `; nothing committed is lost: the next \`efa-sync run\` of job ${job} resumes where this one stopped`;
    super(`stopped by ${signal}: requests and database statements cancelled${next}`);
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
