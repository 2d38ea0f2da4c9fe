import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { dbUrlFrom, redactUrl } from '../db/index.js';
import { lockDataDir } from '../db/lock.js';
import { ConfigError } from '../errors.js';
import { Engine, knownSettings, serverSettings } from '../serve/engine.js';
import { SERVE_ROLE, SERVE_WRITE_ROLE } from '../serve/role.js';
import { addCommonOptions, loggerFor, OPTION_ENV, positiveNumber, type CommonOptions } from './common.js';
import { untilStopped } from './stop.js';

export const defaultServePort = 5433;

export interface ServeOptions {
  /** The PGlite data directory (what `pglite:<dir>` names). */
  readonly dataDir: string;
  readonly host?: string;
  /** 0 = any free port. */
  readonly port?: number;
  /** Allow writes; by default every transaction starts read-only. */
  readonly write?: boolean;
  /** Connections at a time, those still logging in included (they share PGlite's one session, queries queued). */
  readonly maxConnections?: number;
  /** Every client must give it (SCRAM-SHA-256). Required when `host` is not a loopback address. */
  readonly password?: string | undefined;
  /** Told about refused statements and failed passwords. */
  readonly onRefused?: (what: string, remote: string) => void;
  /** Told about clients thrown out (idle in a transaction) and statements ended (cancel, disconnect). */
  readonly onProblem?: (what: string) => void;
  /** A client idle inside a transaction this long is rolled back and disconnected; 0 = never. */
  readonly idleInTransactionMs?: number;
  /** A client's statement running longer is ended (PGlite restarted); 0 = never. */
  readonly statementTimeoutMs?: number;
  /** False only in tests that show privilege alone holds (EFA_SERVE_TEST_NO_GUARD=1): statements are not checked. */
  readonly guard?: boolean;
  /** Startup and password must be done within this. */
  readonly authTimeoutMs?: number;
  /** The largest message an authenticated client may send. */
  readonly maxMessageBytes?: number;
  /** Connections at a time from one address (default: --max-connections, at most 12). */
  readonly maxConnectionsPerAddress?: number;
  /** A logged-in client idle this long is let go when every connection is taken and another client connects; 0 = never. */
  readonly idleSessionMs?: number;
  /** A client's unread answers beyond this many bytes end its connection. */
  readonly maxSpoolBytes?: number;
  /** PGlite's memory (bytes) above which it is opened again once no client is inside a transaction; 0 = never. */
  readonly maxEngineMemoryBytes?: number;
  /** PostgreSQL's temp_file_limit for clients' statements, in bytes. */
  readonly tempFileLimitBytes?: number;
}

export const defaultIdleInTransactionMs = 30_000;
export const defaultStatementTimeoutMs = 30_000;
export const defaultIdleSessionMs = 60_000;
const MB = 1024 * 1024;
export const defaultMaxSpoolMb = 512;
export const defaultMaxEngineMemoryMb = 512;
export const defaultTempFileLimitMb = 1024;
/** Connections from one address: the rest stay open to other machines. */
export const defaultMaxConnectionsPerAddress = 12;
/** The test-only switch that turns the statement check off; privilege alone must then hold (test/serve/attacks). */
export const NO_GUARD_ENV = 'EFA_SERVE_TEST_NO_GUARD';

export interface Served {
  readonly host: string;
  readonly port: number;
  readonly readOnly: boolean;
  /** A password is required. */
  readonly password: boolean;
  /** A psql line that connects; the user and database are what PGlite has: postgres/postgres. */
  readonly psql: string;
  stop(): Promise<void>;
}

/** The psql line that connects to a served database; PGlite's user and database are postgres/postgres. */
export function psqlCommand(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `psql "postgresql://postgres@${shown}:${port}/postgres?sslmode=disable"`;
}

/** `serve` only opens an embedded database: a PostgreSQL server already speaks the protocol itself. */
export class NotEmbeddedError extends ConfigError {
  override name = 'NotEmbeddedError';
}

/** True for 127.0.0.0/8, ::1 and `localhost`: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h.startsWith('::ffff:127.');
}

/** A non-loopback bind without a password: refused, since anyone who reaches the port would get in. */
export class PublicBindWithoutPasswordError extends ConfigError {
  override name = 'PublicBindWithoutPasswordError';
}

/**
 * Opens an embedded PGlite + PostGIS database over the PostgreSQL wire protocol. Clients never
 * reach PGlite's superuser: the session runs as the role `efa_serve` (SELECT in schema efa; row
 * changes too with --write), and a proxy in front checks every statement and asks for the password
 * (`src/serve/`). Read-only also starts each transaction read-only, as before.
 */
export async function startServe(options: ServeOptions): Promise<Served> {
  const dataDir = resolve(options.dataDir);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new ConfigError(`no embedded database at ${dataDir}: npm start or efa-sync run <job> creates it`, 'db');
  }
  const host = options.host ?? '127.0.0.1';
  const password = options.password === '' ? undefined : options.password;
  if (!isLoopback(host) && password === undefined) {
    throw new PublicBindWithoutPasswordError(
      `--host ${host} opens the database to the network, and there is no password: set one in $EFA_SERVE_PASSWORD (or name another variable with --password-env), or keep the default --host 127.0.0.1`,
      'host',
    );
  }
  // The same exclusive lock a run takes: PGlite must never be opened by two processes at once.
  const lock = await lockDataDir(dataDir);
  const readOnly = options.write !== true;
  const log = options.onProblem ?? (() => undefined);
  let engine: Engine | undefined;
  try {
    // The proxy and its parser (libpg-query, WebAssembly, on worker threads: guard-pool.ts) only for serve: a nightly run's process does not carry them.
    const { startWireProxy } = await import('../serve/wire.js');
    const { SessionScheduler } = await import('../serve/session.js');
    const tempFileLimitKb = Math.max(1, Math.round((options.tempFileLimitBytes ?? defaultTempFileLimitMb * MB) / 1024));
    const started = new Engine({ dataDir, write: !readOnly, tempFileLimitKb }, (why) => {
      log(`${why}: opening the database again`);
      void started.restart().catch((e: unknown) => log(`PGlite did not open again: ${e instanceof Error ? e.message : String(e)}`));
    });
    engine = started;
    await started.start();
    const settings = await serverSettings(started);
    const known = await knownSettings(started);
    const sessions = new SessionScheduler(
      started,
      {
        idleInTransactionMs: options.idleInTransactionMs ?? defaultIdleInTransactionMs,
        statementTimeoutMs: options.statementTimeoutMs ?? defaultStatementTimeoutMs,
        maxEngineMemory: options.maxEngineMemoryBytes ?? defaultMaxEngineMemoryMb * MB,
      },
      log,
    );
    const maxConnections = options.maxConnections ?? 16;
    const proxy = await startWireProxy({
      host,
      port: options.port ?? defaultServePort,
      scheduler: sessions,
      serverSettings: settings,
      knownSettings: known,
      password,
      write: !readOnly,
      guard: options.guard !== false,
      maxConnections,
      maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? Math.min(maxConnections, defaultMaxConnectionsPerAddress),
      idleSessionMs: options.idleSessionMs ?? defaultIdleSessionMs,
      maxSpoolBytes: options.maxSpoolBytes ?? defaultMaxSpoolMb * MB,
      authTimeoutMs: options.authTimeoutMs ?? 10_000,
      maxMessageBytes: options.maxMessageBytes ?? 64 * MB,
      ...(options.onRefused ? { onRefused: options.onRefused } : {}),
      onProblem: log,
    }).catch((e: unknown) => {
      const error = e as NodeJS.ErrnoException;
      if (error.code === 'EADDRINUSE') {
        throw new ConfigError(`--port ${options.port ?? defaultServePort}: ${host}:${options.port ?? defaultServePort} is already in use (another serve, or a PostgreSQL server?): stop that, or choose another --port (0 = any free port)`, 'port');
      }
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'EACCES') {
        throw new ConfigError(`--host ${host} --port ${options.port ?? defaultServePort}: cannot listen there (${error.code}): choose an address of this machine and a port above 1023`, 'host');
      }
      throw e;
    });
    return {
      host,
      port: proxy.port,
      readOnly,
      password: password !== undefined,
      psql: psqlCommand(host, proxy.port),
      stop: async () => {
        sessions.stop();
        await proxy.stop();
        // A statement still running is ended: stopping never waits on a client.
        await started.stop(2000);
        await lock.release();
      },
    };
  } catch (e) {
    await engine?.stop(0);
    await lock.release();
    throw e;
  }
}

/** The connection a desktop GIS or BI tool needs, as the lines `serve` and `npm start` print. */
export function connectionHelp(served: Pick<Served, 'host' | 'port' | 'psql' | 'readOnly'> & { readonly password?: boolean }): string[] {
  const host = served.host === '0.0.0.0' || served.host === '::' ? '127.0.0.1' : served.host;
  const password = served.password === true ? 'the password you set' : 'no password';
  return [
    `  psql:   ${served.psql}${served.password === true ? ' (asks for the password; PGPASSWORD works too)' : ''}`,
    `  QGIS:   Layer > Add Layer > Add PostGIS Layers > New: host ${host}, port ${served.port}, database postgres, user postgres, ${password}, SSL mode disable; tables in schema efa`,
    `  others: DBeaver, Metabase, ogr2ogr: the same host/port/database/user, e.g. ogrinfo PG:"host=${host} port=${served.port} dbname=postgres user=postgres" efa.stops`,
    served.readOnly
      ? `  read-only: clients run as role ${SERVE_ROLE} (SELECT on schema efa, never a superuser); COPY to files or programs, server file functions, large objects and role changes are refused (--write allows row changes)`
      : `  WRITES ALLOWED (--write): clients may change rows of schema efa as role ${SERVE_WRITE_ROLE} (never a superuser)`,
  ];
}

interface ServeCliOptions extends Pick<CommonOptions, 'db' | 'logFormat' | 'verbose' | 'debug'> {
  host: string;
  port: number;
  write?: boolean;
  passwordEnv: string;
  idleInTransactionTimeout: number;
  statementTimeout: number;
  authTimeout: number;
  maxConnections: number;
  maxConnectionsPerAddress?: number;
  idleSessionTimeout: number;
  maxSpool: number;
  maxEngineMemory: number;
  tempFileLimit: number;
}

/** Where the password is read from unless --password-env names another variable. */
export const defaultPasswordEnv = OPTION_ENV.servePassword;

export function registerServe(program: Command): void {
  const cmd = program
    .command('serve')
    .description('open the embedded database to psql, QGIS, DBeaver and BI tools over the PostgreSQL protocol (read-only by default)')
    .option('--host <address>', 'address to listen on; anything but loopback (e.g. 0.0.0.0) needs a password', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', (v) => (v === '0' ? 0 : positiveNumber('--port')(v)), defaultServePort)
    .option('--write', 'allow writes (default: every transaction starts read-only)')
    .option('--password-env <VAR>', 'environment variable holding the password clients must give (never an argument)', defaultPasswordEnv)
    .option(
      '--idle-in-transaction-timeout <seconds>',
      'a client idle inside a transaction this long is rolled back and disconnected, so the others sharing the session go on (0 = never)',
      (v) => (v === '0' ? 0 : positiveNumber('--idle-in-transaction-timeout')(v)),
      defaultIdleInTransactionMs / 1000,
    )
    .option(
      '--statement-timeout <seconds>',
      "a client's statement running longer is ended (57014) and the embedded database restarted, so the others sharing it go on (0 = never)",
      (v) => (v === '0' ? 0 : positiveNumber('--statement-timeout')(v)),
      defaultStatementTimeoutMs / 1000,
    )
    .option('--auth-timeout <seconds>', 'startup and password must be done within this; a silent connection is then closed', positiveNumber('--auth-timeout'), 10)
    .option('--max-connections <n>', 'connections at a time, those logging in included; one more is told "too many connections"', positiveNumber('--max-connections'), 16)
    .option('--max-connections-per-address <n>', `connections at a time from one address, so one machine cannot take them all (default: --max-connections, at most ${defaultMaxConnectionsPerAddress})`, positiveNumber('--max-connections-per-address'))
    .option(
      '--idle-session-timeout <seconds>',
      'when every connection is taken, a client that sent nothing for this long (outside a transaction) is let go for the one connecting (0 = never)',
      (v) => (v === '0' ? 0 : positiveNumber('--idle-session-timeout')(v)),
      defaultIdleSessionMs / 1000,
    )
    .option('--max-spool <MB>', "a client's answers left unread beyond this are not kept (it is disconnected); bigger answers: LIMIT or a cursor", positiveNumber('--max-spool'), defaultMaxSpoolMb)
    .option(
      '--max-engine-memory <MB>',
      "when the embedded database's memory grows past this (a client's huge statement), it is opened again as soon as no client is inside a transaction, to give the memory back (0 = never)",
      (v) => (v === '0' ? 0 : positiveNumber('--max-engine-memory')(v)),
      defaultMaxEngineMemoryMb,
    )
    .option('--temp-file-limit <MB>', "disk one statement may spill to (PostgreSQL's temp_file_limit); spill files are removed at every start", positiveNumber('--temp-file-limit'), defaultTempFileLimitMb);
  addCommonOptions(cmd, ['db', 'log']).action(async (opts: ServeCliOptions) => {
    const url = dbUrlFrom(opts.db);
    if (!url.startsWith('pglite:')) {
      throw new NotEmbeddedError(`serve opens an embedded database (pglite:<dir>); ${redactUrl(url)} is a server already: connect to it directly`, 'db');
    }
    const location = url.slice('pglite:'.length);
    if (location === '' || location.startsWith('memory')) throw new NotEmbeddedError('serve needs a pglite:<dir> on disk, not an in-memory database', 'db');
    const log = loggerFor(opts);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.passwordEnv)) {
      throw new ConfigError(`--password-env: "${opts.passwordEnv}" is not an environment variable name (letters, digits, _)`, 'password-env');
    }
    const password = process.env[opts.passwordEnv];
    if (opts.passwordEnv !== defaultPasswordEnv && (password === undefined || password === '')) {
      throw new ConfigError(`--password-env ${opts.passwordEnv}: that variable is not set (or empty); set the password in it`, 'password-env');
    }
    const served = await startServe({
      dataDir: location,
      host: opts.host,
      port: opts.port,
      write: opts.write === true,
      password,
      idleInTransactionMs: opts.idleInTransactionTimeout * 1000,
      statementTimeoutMs: opts.statementTimeout * 1000,
      guard: process.env[NO_GUARD_ENV] !== '1',
      maxConnections: opts.maxConnections,
      ...(opts.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: opts.maxConnectionsPerAddress }),
      idleSessionMs: opts.idleSessionTimeout * 1000,
      maxSpoolBytes: opts.maxSpool * MB,
      maxEngineMemoryBytes: opts.maxEngineMemory * MB,
      tempFileLimitBytes: opts.tempFileLimit * MB,
      authTimeoutMs: opts.authTimeout * 1000,
      onRefused: (what, remote) => log.warn(`refused from ${remote}: ${what}`),
      onProblem: (what) => log.warn(what),
    });
    // Before the line that says it is serving. Stopping ends a running statement within seconds (serve.stop).
    const stopped = untilStopped(() => served.stop(), 15_000);
    process.stdout.write([`serving ${url} on ${served.host}:${served.port}; Ctrl-C stops it`, ...connectionHelp(served), ''].join('\n'));
    if (process.env[NO_GUARD_ENV] === '1') log.warn(`${NO_GUARD_ENV}=1: the statement check is off (a test-only switch); clients meet only the role's privileges`);
    if (!isLoopback(served.host)) {
      log.warn(`serving on ${served.host}: every machine that reaches port ${served.port} can try the password; there is no TLS, so use it on a trusted network only`);
    }
    log.info('serving the embedded database', { host: served.host, port: served.port, readOnly: served.readOnly, authentication: served.password ? 'scram-sha-256' : 'none',
      idleInTransactionTimeoutSeconds: opts.idleInTransactionTimeout,
      statementTimeoutSeconds: opts.statementTimeout,
      maxConnections: opts.maxConnections,
      maxSpoolMb: opts.maxSpool,
      maxEngineMemoryMb: opts.maxEngineMemory,
      tempFileLimitMb: opts.tempFileLimit,
    });
    await stopped;
  });
}
