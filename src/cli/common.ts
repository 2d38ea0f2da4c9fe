import { Option, type Command } from 'commander';
import { DIALECT_NAMES } from '../efa/dialects/index.js';
import { lineageUrlProblem } from '../run/openlineage.js';
import { ConfigError, ExitCode, errorText, exitCodeOf } from '../errors.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS, redactSecretsInText, stderrLogOutput, type LogFormat, type Logger, type LogLevel } from '../util/log.js';

/** Options every command that touches the database or the API understands (contract section 2). */
export interface CommonOptions {
  db?: string;
  baseUrl?: string;
  json?: boolean;
  logFormat?: LogFormat;
  logLevel?: LogLevel;
  quiet?: boolean;
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
  json: 'EFA_JSON',
  logFormat: 'EFA_LOG_FORMAT',
  logLevel: 'EFA_LOG_LEVEL',
  quiet: 'EFA_QUIET',
  verbose: 'EFA_VERBOSE',
  debug: 'EFA_DEBUG',
  rps: 'EFA_RPS',
  concurrency: 'EFA_CONCURRENCY',
  dialect: 'EFA_DIALECT',
  metricsFile: 'EFA_METRICS_FILE',
  full: 'EFA_FULL',
  statementTimeout: 'EFA_STATEMENT_TIMEOUT',
  metricsPushUrl: 'EFA_METRICS_PUSH_URL',
  acceptDeletions: 'EFA_ACCEPT_DELETIONS',
  openlineageUrl: 'OPENLINEAGE_URL', // the variable OpenLineage's own clients read
  /** serve: the password clients must give (the variable --password-env names by default). */
  servePassword: 'EFA_SERVE_PASSWORD',
} as const;

/** A value an option's text cannot be: the message says what was expected, the caller names the source. */
class OptionValueError extends Error {}

/**
 * How each checked option turns its text into a value. Checked after parsing, not by commander's
 * argParser, because only then is it known whether the text came from the command line or from the
 * environment, and the error must name the one the operator has to fix (EFA_RPS, not --rps).
 */
const valueParsers = new WeakMap<Option, (text: string) => unknown>();

function checked(option: Option, parse: (text: string) => unknown): Option {
  valueParsers.set(option, parse);
  return option;
}

const positive = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new OptionValueError(`expected a positive number, got "${text}"`);
  return n;
};
const seconds = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new OptionValueError(`expected a number of seconds (0 = no limit), got "${text}"`);
  return n;
};
const httpUrl = (text: string): string => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OptionValueError('expected an http(s) URL, e.g. https://efa.example.org/efa (the part before XML_…_REQUEST)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OptionValueError(`expected an http(s) URL, got a ${url.protocol} URL`);
  return text;
};

/** Throws the problem an option's value has (for a check written as one expression). */
function fail(problem: string): never { throw new OptionValueError(problem); }

/** The statement_timeout of a run's database statements when none is given: generous, a bound for a runaway. */
export const defaultStatementTimeoutS = 1800;

/**
 * Every common option, defined once: flag, help, environment variable and check. Commands pick the
 * ones they take (`addCommonOptions`); a description may be adapted to the command.
 */
const commonOptions = {
  db: (d = 'database: postgres://… or pglite:<dir> (default $DATABASE_URL, else PGHOST/PGPORT/PGDATABASE/PGUSER/PGPASSWORD when set, else pglite:./.efa-sync/db)') => new Option('--db <url>', d).env(OPTION_ENV.db),
  baseUrl: (d = "EFA base URL, the part before XML_…_REQUEST (overrides the job's baseUrl, or stands in for it)") =>
    checked(new Option('--base-url <url>', d).env(OPTION_ENV.baseUrl), httpUrl),
  rps: (d = "override the job's requestsPerSecond") => checked(new Option('--rps <n>', d).env(OPTION_ENV.rps), positive),
  concurrency: (d = "override the job's concurrency") => checked(new Option('--concurrency <n>', d).env(OPTION_ENV.concurrency), positive),
  dialect: (d = "override the job's response dialect") => new Option('--dialect <dialect>', d).choices([...DIALECT_NAMES]).env(OPTION_ENV.dialect),
  metricsFile: (d = 'write Prometheus text-format metrics of the run (node_exporter textfile collector; the directory must exist)') =>
    new Option('--metrics-file <path>', d).env(OPTION_ENV.metricsFile),
  full: (d = 'ignore incremental state and sweep everything') => new Option('--full', d).env(OPTION_ENV.full),
  acceptDeletions: (
    d = 'release what the mass-deletion guard held in run <run-id> (see `efa-sync runs`), once you checked the deployment really removed them: that run\'s relations, up to the counts it held, while it is the job\'s last finished run. Never an answer that empties a relation or a region that answered nothing. Bare (or EFA_ACCEPT_DELETIONS=1): deprecated, releases any night\'s share holds',
  ) => new Option('--accept-deletions [run-id]', d).env(OPTION_ENV.acceptDeletions),
  statementTimeout: (
    d = `PostgreSQL: cancel a database statement of the run that takes longer, in seconds (0 = no limit; default ${defaultStatementTimeoutS})`,
  ) => checked(new Option('--statement-timeout <s>', d).env(OPTION_ENV.statementTimeout), seconds),
  openlineageUrl: (d = 'send OpenLineage run events to http(s)://host:port (POST to <url>/api/v1/lineage unless it has a path) or append them to file:///path.ndjson') =>
    checked(new Option('--openlineage-url <url>', d).env(OPTION_ENV.openlineageUrl), (t) => (lineageUrlProblem(t) === undefined ? t : fail(lineageUrlProblem(t)!))),
  json: (d = 'print one JSON summary object on stdout; logs stay on stderr') => new Option('--json', d).env(OPTION_ENV.json),
} as const;
export type CommonOptionName = keyof typeof commonOptions | 'log';

/** One common option, for a command that adds it itself (with a default, say). */
export function commonOption(name: keyof typeof commonOptions, description?: string): Option {
  return commonOptions[name](description);
}

/** Adds the named common options to `cmd`; `log` is the logging options (addLogOptions). */
export function addCommonOptions(cmd: Command, names: readonly CommonOptionName[], descriptions: Partial<Record<keyof typeof commonOptions, string>> = {}): Command {
  for (const name of names) {
    if (name === 'log') addLogOptions(cmd);
    else cmd.addOption(commonOptions[name](descriptions[name]));
  }
  return cmd;
}

/**
 * Turns the text of every checked option of `cmd` into its value; a bad one is a ConfigError (exit 2)
 * naming where it came from: the flag, or the environment variable. Called before every action.
 */
export function checkOptionValues(cmd: Command): void {
  for (const option of cmd.options) {
    const parse = valueParsers.get(option);
    const key = option.attributeName();
    const value: unknown = cmd.getOptionValue(key);
    if (parse === undefined || typeof value !== 'string') continue;
    const source = cmd.getOptionValueSource(key);
    const name = source === 'env' && option.envVar ? option.envVar : (option.long ?? key);
    try {
      cmd.setOptionValueWithSource(key, parse(value), source ?? 'cli');
    } catch (e) {
      if (!(e instanceof OptionValueError)) throw e;
      throw new ConfigError(`${name}: ${e.message}`, name);
    }
  }
}

export function dbOption(description?: string): Option {
  return commonOptions.db(description);
}

export function addDbOption(cmd: Command): Command {
  return addCommonOptions(cmd, ['db']);
}

export function baseUrlOption(description?: string): Option {
  return commonOptions.baseUrl(description);
}

export function addOutputOptions(cmd: Command): Command {
  return addCommonOptions(cmd, ['json', 'log']);
}

/** How a command logs: format, level, stacks. */
export function addLogOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--log-format <format>', 'log lines on stderr, errors included (default: pretty on a terminal, else json)')
        .choices([...LOG_FORMATS])
        .env(OPTION_ENV.logFormat),
    )
    .addOption(new Option('--log-level <level>', 'least severe level logged (default info; wins over --quiet and --verbose)').choices([...LOG_LEVELS]).env(OPTION_ENV.logLevel))
    .addOption(new Option('-q, --quiet', 'warnings and errors only (--log-level warn)').env(OPTION_ENV.quiet))
    .addOption(new Option('-v, --verbose', 'debug logging (--log-level debug): rate changes, retries').env(OPTION_ENV.verbose))
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
      // A flag, or an option whose value may be left out (--accept-deletions [run-id]).
      const mayBeFlag = !option.required;
      if (value.trim() === '' || (mayBeFlag && falseWords.test(value.trim()))) delete env[option.envVar];
    }
    cmd.commands.forEach(visit);
  };
  visit(program);
  if (env[OPTION_ENV.db]?.trim() === '') delete env[OPTION_ENV.db];
}

/** How the CLI itself speaks: log format and level, and whether errors show their stack. */
export interface OutputSettings {
  readonly format: LogFormat;
  readonly level: LogLevel;
  readonly debug: boolean;
}

/**
 * The level a command logs at: `--log-level` (EFA_LOG_LEVEL) when given, else `warn` for `--quiet`
 * (EFA_QUIET), `debug` for `--verbose` (EFA_VERBOSE), else `info`.
 */
export function logLevelOf(opts: { readonly logLevel?: LogLevel | undefined; readonly quiet?: boolean | undefined; readonly verbose?: boolean | undefined }): LogLevel {
  return opts.logLevel ?? (opts.quiet ? 'warn' : opts.verbose ? 'debug' : 'info');
}

/**
 * The output settings as far as the raw command line and the environment tell, for what happens
 * before commander has parsed the options (a parse error, an option's value rejected).
 */
export function outputSettingsFromArgv(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): OutputSettings {
  const valueOf = (name: string): string | undefined => {
    let value: string | undefined;
    argv.forEach((arg, i) => {
      if (arg === name) value = argv[i + 1];
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    });
    return value;
  };
  const format = valueOf('--log-format') ?? env[OPTION_ENV.logFormat];
  const level = valueOf('--log-level') ?? env[OPTION_ENV.logLevel]?.trim();
  const flag = (name: string, short: string | undefined, envName: string): boolean => {
    const value = env[envName]?.trim();
    return argv.includes(name) || (short !== undefined && argv.includes(short)) || (value !== undefined && value !== '' && !falseWords.test(value));
  };
  return {
    format: LOG_FORMATS.find((f) => f === format) ?? defaultLogFormat(),
    level: logLevelOf({
      logLevel: LOG_LEVELS.find((l) => l === level),
      quiet: flag('--quiet', '-q', OPTION_ENV.quiet),
      verbose: flag('--verbose', '-v', OPTION_ENV.verbose),
    }),
    debug: flag('--debug', undefined, OPTION_ENV.debug),
  };
}

/** The settings a command's parsed options give, over those of the raw command line. */
export function outputSettingsFrom(opts: CommonOptions, fallback: OutputSettings): OutputSettings {
  return {
    format: opts.logFormat ?? fallback.format,
    level: opts.logLevel !== undefined || opts.quiet !== undefined || opts.verbose !== undefined ? logLevelOf(opts) : fallback.level,
    debug: opts.debug ?? fallback.debug,
  };
}

function defaultLogFormat(): LogFormat {
  return stderrLogOutput().interactive ? 'pretty' : 'json';
}

export function loggerFor(opts: CommonOptions): Logger {
  return createLogger({ format: opts.logFormat ?? defaultLogFormat(), level: logLevelOf(opts) });
}

/** Integer option parser for commander that names the option in its error. */
export function positiveNumber(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name}: expected a positive number, got "${value}"`, name);
    return n;
  };
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
