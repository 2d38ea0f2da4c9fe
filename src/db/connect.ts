import type { Kysely } from 'kysely';
import { ConfigError } from '../errors.js';
import { redactUrl as redactUrlByName } from '../util/redact.js';
import { serviceSettings, type ServiceParameter, type ServiceSettings } from './pg-service.js';
import type { Database } from './tables.js';

/** One open database, PostgreSQL server or embedded PGlite, behind the same Kysely interface. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly kind: 'postgres' | 'pglite';
  /** The PGlite instance of an embedded database, for tools that run inside it (pg_dump in WebAssembly: `db dump`). */
  readonly embedded?: import('@electric-sql/pglite').PGlite;
  /** The URL with any password replaced, safe for logs and summaries. */
  readonly displayUrl: string;
  /**
   * Runs a multi-statement SQL script without parameters (migrations); kysely's `sql` cannot.
   * When it fails, a transaction the script opened is rolled back on the same connection.
   */
  exec(script: string): Promise<void>;
  /**
   * Takes the lock of one job for the life of a run, or throws LockedError naming the holder run.
   * PostgreSQL: a session advisory lock on a connection of its own (released if the process dies),
   * on a key derived from a per-job secret a reader cannot read (see takeJobKey in lock.ts).
   * PGlite: the whole data directory is already exclusive to this process (see lockDataDir).
   */
  lockJob(jobName: string): Promise<JobLock>;
  /**
   * One transaction on one connection, with COPY: the loader streams rows into a staging table and
   * merges them with set-based SQL in the same transaction. Rolled back when `fn` throws.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, o?: TransactionOptions): Promise<T>;
  /**
   * Stops this process's work on the database, for a process about to exit (SIGTERM, SIGINT, a lost
   * lease): no connection is handed out any more, and each statement running on one of its
   * connections is cancelled from a connection of its own (pg_cancel_backend). A server otherwise
   * goes on executing a statement whose client has gone until it ends, minutes or hours later.
   * PGlite runs inside the process and ends with it: nothing to do.
   */
  stop(): Promise<void>;
  /**
   * One last write of a process that stopped (the record of a run a signal ended): PostgreSQL runs it on
   * a connection of its own, outside the stopped pool, with short connect and lock timeouts (the run's
   * cancelled transaction may still hold its row for a moment); PGlite on the instance itself.
   */
  lastWord<T>(fn: (kysely: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The statement_timeout every statement runs under (PostgreSQL), when one was set. */
  readonly statementTimeoutMs?: number;
}

export interface OpenDbOptions {
  /**
   * PostgreSQL's statement_timeout for every statement of this connection pool: a ledger statement
   * that runs away is cancelled by the server instead of holding a core for hours. Not on PGlite,
   * which runs inside the process (stopping the process stops it).
   */
  readonly statementTimeoutMs?: number;
  /**
   * false: the command reads no geometry (`runs`, `doctor`), so PGlite opens without PostGIS, which is
   * most of an embedded open's cost (measured on a demo database: 0.8 s and 296 MB RSS without it,
   * 3.5 s and 848 MB with it). PostgreSQL has PostGIS in the server and ignores this.
   */
  readonly geometry?: boolean;
}

/**
 * The server refused the database URL itself: the database does not exist, or the role or its
 * password is refused. Configuration, not a lost database: exit 2, with what to do.
 */
export class DatabaseRefusedError extends ConfigError {
  override name = 'DatabaseRefusedError';
}

export interface TransactionOptions {
  /**
   * Statements without parameters, `;`-separated, run first, in the message that begins the
   * transaction (a server answers them all at once: a round trip less); the rows of the first are the
   * transaction's `opened`.
   */
  readonly opening?: string;
}

/** A transaction: queries through Kysely, and COPY … FROM of text-format rows, on its one connection. */
export interface Tx {
  /** The rows of the first `opening` statement (TransactionOptions); empty without one. */
  readonly opened: readonly Record<string, unknown>[];
  readonly kysely: Kysely<Database>;
  /** COPY `table` (`columns`) FROM text-format data (see copy.ts); returns when the rows are in. */
  copyIn(table: string, columns: readonly string[], text: Iterable<string>): Promise<void>;
  /**
   * The rows of `query` as COPY text (copy.ts), whole: the caller bounds the query (`db copy` reads a
   * table a range of pages at a time, copy-warehouse.ts).
   */
  copyOut(query: string): Promise<string>;
  /**
   * What lives for the connection's session (temporary tables created on it): the same set for every
   * transaction on the same connection.
   */
  readonly session: Set<string>;
}

export interface JobLock {
  /** Tell the lock which run holds it, for the message a second run prints. */
  holds(runId: string): Promise<void>;
  /**
   * Aborts when the lock is lost while held (PostgreSQL: its connection died or its backend was
   * terminated): another process may take the run over at any moment, so this one must stop sending.
   */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export const defaultDbUrl = 'pglite:./.efa-sync/db';

/**
 * libpq's connection variables: any of them set selects a PostgreSQL server, as for psql and ogr2ogr.
 * PGSERVICE names a section of the connection service file (pg-service.ts).
 */
export const PG_ENV_VARS = ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER', 'PGPASSWORD', 'PGSERVICE'] as const;

/** Where the database URL came from, for the one line that says which database a command opens. */
export type DbUrlSource = '--db' | 'DATABASE_URL' | 'PG environment' | 'default';

/**
 * `--db`, else `$DATABASE_URL`, else libpq's `PGSERVICE`/`PGHOST`/`PGPORT`/`PGDATABASE`/`PGUSER`/`PGPASSWORD`
 * when any is set (pgEnvUrl), else the embedded default.
 */
export function dbUrlChoice(option: string | undefined, env: NodeJS.ProcessEnv = process.env): { url: string; from: DbUrlSource } {
  if (option !== undefined) return { url: checkedUrl(option, '--db'), from: '--db' };
  const fromEnv = env['DATABASE_URL'];
  if (fromEnv !== undefined) return { url: checkedUrl(fromEnv, 'DATABASE_URL'), from: 'DATABASE_URL' };
  const pgUrl = pgEnvUrl(env);
  return pgUrl === undefined ? { url: defaultDbUrl, from: 'default' } : { url: pgUrl, from: 'PG environment' };
}

/**
 * A URL's `service=` would be passed over by node-postgres without a word: refused, with what works.
 * (libpq reads it; efa-sync reads a service from PGSERVICE only.)
 */
function checkedUrl(url: string, from: string): string {
  if (/^postgres(ql)?:/.test(url) && /[?&]service=/.test(url)) {
    throw new ConfigError(`${from}: service=… in a database URL is not read by efa-sync's PostgreSQL driver; set PGSERVICE=<name> (and no --db / DATABASE_URL) instead, or give host, port and database in the URL`, from);
  }
  return url;
}

/** `--db`, else `$DATABASE_URL`, else the PG* environment, else the embedded default (dbUrlChoice). */
export function dbUrlFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return dbUrlChoice(option, env).url;
}

/**
 * The URL libpq's variables name. PGPASSWORD is not written into it: the driver (node-postgres) reads
 * PGPASSWORD (and fills whatever else the URL leaves empty) from the environment itself. A service's
 * settings (PGSERVICE, pg-service.ts) override the variables, as in libpq; its password is in the URL,
 * which every display redacts (redactUrl). A host that is a directory (`/var/run/postgresql`) is a Unix
 * socket. Undefined when none of PG_ENV_VARS is set (an empty value counts as unset, as in libpq).
 */
export function pgEnvUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = (name: (typeof PG_ENV_VARS)[number]): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  if (PG_ENV_VARS.every((name) => value(name) === undefined)) return undefined;
  const serviceName = value('PGSERVICE');
  const service: ServiceSettings = serviceName === undefined ? {} : serviceSettings(serviceName, env).settings;
  const named = (key: ServiceParameter, variable: string): { text: string | undefined; from: string } =>
    service[key] !== undefined && service[key] !== '' ? { text: service[key], from: `service "${serviceName}" ${key}` } : { text: value(variable as (typeof PG_ENV_VARS)[number]), from: variable };
  const host = named('host', 'PGHOST');
  const port = named('port', 'PGPORT');
  if (port.text !== undefined && !/^\d{1,5}$/.test(port.text)) throw new ConfigError(`${port.from}: "${port.text}" is not a port number; set it to the server's port (e.g. 5432) or unset it`, 'db');
  if (host.text?.includes(',') === true) throw new ConfigError(`${host.from}: "${host.text}" names several hosts; efa-sync connects to one: set one host, or give --db postgres://…`, 'db');
  const user = named('user', 'PGUSER').text;
  const database = named('dbname', 'PGDATABASE').text;
  const password = service.password;
  const socket = host.text?.startsWith('/') === true;
  const hostPart = socket || host.text === undefined ? '' : host.text.includes(':') ? `[${host.text}]` : host.text;
  const userinfo = user === undefined && password === undefined ? '' : `${encodeURIComponent(user ?? '')}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@`;
  const query = new URLSearchParams();
  if (socket && host.text !== undefined) query.set('host', host.text);
  for (const key of ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name'] as const) {
    if (service[key] !== undefined) query.set(key, service[key]);
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return `postgres://${userinfo}${hostPart}${port.text === undefined ? '' : `:${port.text}`}/${database === undefined ? '' : encodeURIComponent(database)}${search}`;
}

/** A database URL as safe to show: the password and secret-named parameters replaced (src/util/redact.ts). */
export function redactUrl(url: string): string {
  if (!/^postgres(ql)?:/.test(url)) return url;
  return redactUrlByName(url);
}

/**
 * Both drivers return the same JS types: bigint as string (run ids exceed 2^53 only in theory, but
 * pg's default is a string and PGlite's a number) and date as 'YYYY-MM-DD' (a Date would shift by
 * the local time zone). The type ids each driver is told to read so.
 */
export const pgOid = { int8: 20, date: 1082 } as const;
