import { Option, type Command } from 'commander';
import { dbUrlFrom, migrate, openDb, type Db } from '../db/index.js';
import { ConfigError, ExitCode } from '../errors.js';
import { createLogger, redactSecretsInText, type LogFormat, type Logger } from '../util/log.js';

/** Options every command that touches the database or the API understands (contract section 2). */
export interface CommonOptions {
  db?: string;
  baseUrl?: string;
  json?: boolean;
  logFormat?: LogFormat;
  verbose?: boolean;
}

export function addDbOption(cmd: Command): Command {
  return cmd.option('--db <url>', 'database: postgres://… or pglite:<dir> (default $DATABASE_URL, else pglite:./.efa-sync/db)');
}

export function addOutputOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print one JSON summary object on stdout; logs stay on stderr')
    .addOption(new Option('--log-format <format>', 'log lines on stderr').choices(['pretty', 'json']))
    .option('-v, --verbose', 'debug logging');
}

export function loggerFor(opts: CommonOptions): Logger {
  return createLogger({ format: opts.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json'), level: opts.verbose ? 'debug' : 'info' });
}

/** Opens the database the options name and brings its schema up to date. */
export async function openMigratedDb(opts: CommonOptions): Promise<Db> {
  const db = await openDb(dbUrlFrom(opts.db));
  try {
    await migrate(db);
  } catch (e) {
    await db.close();
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

/** Maps any error escaping a command to the contract's exit codes, printing one clear line. */
export function exitCodeFor(error: unknown, log: Logger): number {
  const code = (error as { exitCode?: unknown } | null)?.exitCode;
  const message = redactSecretsInText(error instanceof Error ? error.message : String(error));
  const name = error instanceof Error ? error.name : 'Error';
  log.error(message, { error: name });
  return typeof code === 'number' ? code : ExitCode.failed;
}
