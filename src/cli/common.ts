import { Option, type Command } from 'commander';
import { sql } from 'kysely';
import { dbUrlFrom, migrate, openDb, type Db } from '../db/index.js';
import { ConfigError, DatabaseUnavailableError, ExitCode, errorText, exitCodeOf } from '../errors.js';
import { createLogger, LOG_FORMATS, redactSecretsInText, stderrLogOutput, type LogFormat, type Logger } from '../util/log.js';

/** Options every command that touches the database or the API understands (contract section 2). */
export interface CommonOptions {
  db?: string;
  baseUrl?: string;
  json?: boolean;
  logFormat?: LogFormat;
  verbose?: boolean;
  debug?: boolean;
}

/**
 * The environment variable behind each common option. Operators pass configuration through the
 * environment (compose files, Kubernetes, systemd units); commander's `Option.env()` reads it and
 * `--help` names it beside the option. An option given on the command line wins.
 */
export const OPTION_ENV = {
  db: 'DATABASE_URL',
  baseUrl: 'EFA_BASE_URL',
  logFormat: 'EFA_LOG_FORMAT',
  verbose: 'EFA_VERBOSE',
  debug: 'EFA_DEBUG',
  rps: 'EFA_RPS',
  concurrency: 'EFA_CONCURRENCY',
  dialect: 'EFA_DIALECT',
  metricsFile: 'EFA_METRICS_FILE',
  acceptDeletions: 'EFA_ACCEPT_DELETIONS',
} as const;

export function dbOption(description = 'database: postgres://… or pglite:<dir> (default pglite:./.efa-sync/db)'): Option {
  return new Option('--db <url>', description).env(OPTION_ENV.db);
}

export function addDbOption(cmd: Command): Command {
  return cmd.addOption(dbOption());
}

export function baseUrlOption(description: string): Option {
  return new Option('--base-url <url>', description).env(OPTION_ENV.baseUrl);
}

export function addOutputOptions(cmd: Command): Command {
  return addLogOptions(cmd.option('--json', 'print one JSON summary object on stdout; logs stay on stderr'));
}

/** How a command logs: format, level, stacks. */
export function addLogOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--log-format <format>', 'log lines on stderr, errors included (default: pretty on a terminal, else json)')
        .choices([...LOG_FORMATS])
        .env(OPTION_ENV.logFormat),
    )
    .addOption(new Option('-v, --verbose', 'debug logging').env(OPTION_ENV.verbose))
    .addOption(new Option('--debug', 'print the stack trace of an error that ends the command').env(OPTION_ENV.debug));
}

const falseWords = /^(0|false|no|off)$/i;

/**
 * An empty environment variable counts as unset (a compose file's `EFA_BASE_URL: ${EFA_BASE_URL:-}`
 * passes an empty string), and an on/off variable set to 0, false, no or off counts as off
 * (commander turns a flag on for any value). Applied to every variable an option of `program`
 * reads, and to DATABASE_URL, before the command line is parsed.
 */
export function dropUnsetEnvironment(program: Command, env: NodeJS.ProcessEnv = process.env): void {
  const visit = (cmd: Command): void => {
    for (const option of cmd.options) {
      if (!option.envVar) continue;
      const value = env[option.envVar];
      if (value === undefined) continue;
      const isFlag = !option.required && !option.optional;
      if (value.trim() === '' || (isFlag && falseWords.test(value.trim()))) delete env[option.envVar];
    }
    cmd.commands.forEach(visit);
  };
  visit(program);
  if (env[OPTION_ENV.db]?.trim() === '') delete env[OPTION_ENV.db];
}

/** How the CLI itself speaks: log format and level, and whether errors show their stack. */
export interface OutputSettings {
  readonly format: LogFormat;
  readonly verbose: boolean;
  readonly debug: boolean;
}

/**
 * The output settings as far as the raw command line and the environment tell, for what happens
 * before commander has parsed the options (a parse error, an option's value rejected).
 */
export function outputSettingsFromArgv(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): OutputSettings {
  let format: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === '--log-format') format = argv[i + 1];
    else if (arg.startsWith('--log-format=')) format = arg.slice('--log-format='.length);
  });
  format ??= env[OPTION_ENV.logFormat];
  const flag = (name: string, short: string | undefined, envName: string): boolean => {
    const value = env[envName]?.trim();
    return argv.includes(name) || (short !== undefined && argv.includes(short)) || (value !== undefined && value !== '' && !falseWords.test(value));
  };
  return {
    format: LOG_FORMATS.find((f) => f === format) ?? defaultLogFormat(),
    verbose: flag('--verbose', '-v', OPTION_ENV.verbose),
    debug: flag('--debug', undefined, OPTION_ENV.debug),
  };
}

/** The settings a command's parsed options give, over those of the raw command line. */
export function outputSettingsFrom(opts: CommonOptions, fallback: OutputSettings): OutputSettings {
  return {
    format: opts.logFormat ?? fallback.format,
    verbose: opts.verbose ?? fallback.verbose,
    debug: opts.debug ?? fallback.debug,
  };
}

function defaultLogFormat(): LogFormat {
  return stderrLogOutput().interactive ? 'pretty' : 'json';
}

export function loggerFor(opts: CommonOptions): Logger {
  return createLogger({ format: opts.logFormat ?? defaultLogFormat(), level: opts.verbose ? 'debug' : 'info' });
}

/** Opens the database the options name and brings its schema up to date. */
export async function openMigratedDb(opts: CommonOptions): Promise<Db> {
  const db = await openDb(dbUrlFrom(opts.db));
  try {
    await whenDatabaseLost(db, undefined, () => migrate(db));
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  return db;
}

/** Integer option parser for commander that names the option in its error. */
export function positiveNumber(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name}: expected a positive number, got "${value}"`, name);
    return n;
  };
}

/** Whether the database answers a trivial query within `timeoutMs`. */
export async function databaseAnswers(db: Db, timeoutMs = 5_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`SELECT 1`.execute(db.kysely).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database a command is working on, for an error that escapes outside its `work` (an 'error' event). */
let databaseInUse: { readonly db: Db; readonly job: string | undefined } | undefined;

/**
 * Runs `work`; when it fails with an error of no specific exit code and the database no longer
 * answers, the failure is the database's: it becomes a DatabaseUnavailableError naming the
 * database (redacted) and, for a run, that the next run resumes. Asking the database instead of
 * guessing from error codes keeps a refused EFA connection from being taken for a lost database.
 */
export async function whenDatabaseLost<T>(db: Db, job: string | undefined, work: () => Promise<T>): Promise<T> {
  const previous = databaseInUse;
  databaseInUse = { db, job };
  try {
    return await work();
  } catch (error) {
    throw await blameDatabase(error, db, job);
  } finally {
    databaseInUse = previous;
  }
}

/** For an error that escaped every handler: a DatabaseUnavailableError when the database in use stopped answering. */
export async function explainUncaught(error: unknown): Promise<unknown> {
  return databaseInUse ? blameDatabase(error, databaseInUse.db, databaseInUse.job) : error;
}

async function blameDatabase(error: unknown, db: Db, job: string | undefined): Promise<unknown> {
  if (exitCodeOf(error) !== ExitCode.failed || error instanceof DatabaseUnavailableError) return error;
  return (await databaseAnswers(db)) ? error : new DatabaseUnavailableError(db.displayUrl, job, { cause: error });
}

/**
 * The last word of a command that failed: one line in the chosen log format (a JSON object with
 * `level`, `msg`, `error` and `exitCode`, or one pretty line), the stack only with `--debug` or
 * EFA_DEBUG=1, and the exit code (`exitCodeOf`, the one mapping there is).
 */
export function reportFailure(error: unknown, log: Logger, opts: { readonly debug: boolean }): ExitCode {
  const exitCode = exitCodeOf(error);
  const text = errorText(error).replace(/\s*\n\s*/g, '; ');
  const stack = opts.debug && error instanceof Error ? { err: { type: error.name, message: text, stack: redactSecretsInText(stackWithCauses(error)) } } : {};
  log.error(text, { error: error instanceof Error ? error.name : typeof error, exitCode, ...stack });
  return exitCode;
}

/** The stack of an error and of each error it wraps (a DatabaseUnavailableError's cause is where it broke). */
function stackWithCauses(error: Error): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 5; e = e.cause) parts.push(e.stack ?? `${e.name}: ${e.message}`);
  return parts.join('\ncaused by: ');
}
