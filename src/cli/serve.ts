import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { dbUrlFrom, redactUrl } from '../db/index.js';
import { lockDataDir } from '../db/lock.js';
import { ConfigError } from '../errors.js';
import { enterServeRole, SERVE_ROLE } from '../serve/role.js';
import { addCommonOptions, loggerFor, OPTION_ENV, positiveNumber, type CommonOptions } from './common.js';

export const defaultServePort = 5433;

export interface ServeOptions {
  /** The PGlite data directory (what `pglite:<dir>` names). */
  readonly dataDir: string;
  readonly host?: string;
  /** 0 = any free port. */
  readonly port?: number;
  /** Allow writes; by default every transaction starts read-only. */
  readonly write?: boolean;
  /** Concurrent client connections (they share PGlite's one session, queries queued). */
  readonly maxConnections?: number;
  /** Every client must give it (SCRAM-SHA-256). Required when `host` is not a loopback address. */
  readonly password?: string | undefined;
  /** Told about refused statements and failed passwords. */
  readonly onRefused?: (what: string, remote: string) => void;
}

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
  // PGlite's own socket server listens where only this process can reach it; the proxy is the door.
  const socketDir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-'));
  try {
    // The proxy and its parser (libpg-query, WebAssembly) only for serve: a nightly run's process does not carry them.
    const { loadGuard } = await import('../serve/guard.js');
    const { startWireProxy } = await import('../serve/wire.js');
    await loadGuard();
    const { PGlite } = await import('@electric-sql/pglite');
    const { postgis } = await import('@electric-sql/pglite-postgis');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const db = await PGlite.create({ dataDir, extensions: { postgis } });
    const readOnly = options.write !== true;
    await enterServeRole(db, !readOnly);
    if (readOnly) await db.exec('SET default_transaction_read_only = on');
    const maxConnections = options.maxConnections ?? 16;
    const backendPath = join(socketDir, '.s.PGSQL');
    const server = new PGLiteSocketServer({ db, path: backendPath, maxConnections });
    server.addEventListener('connection', () => {
      // A previous client may have turned it off: each new connection starts read-only again.
      if (readOnly) void db.exec('SET default_transaction_read_only = on').catch(() => undefined);
    });
    await server.start();
    const proxy = await startWireProxy({
      host,
      port: options.port ?? defaultServePort,
      backendPath,
      password,
      write: !readOnly,
      maxConnections,
      ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    }).catch(async (e: unknown) => {
      await server.stop();
      await db.close();
      throw e;
    });
    return {
      host,
      port: proxy.port,
      readOnly,
      password: password !== undefined,
      psql: psqlCommand(host, proxy.port),
      stop: async () => {
        await proxy.stop();
        // The proxy's backend connections close on their own; wait for PGlite's handlers to see it
        // (on a loaded machine this takes more than a tick) before stopping the socket server.
        for (const deadline = Date.now() + 5000; server.getStats().activeConnections > 0 && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await server.stop();
        // Each detached socket still finishes its 'close' handling on a later tick, asking PGlite
        // whether a transaction is open; closing PGlite under it crashes the process. Let those run first.
        await new Promise((resolve) => setTimeout(resolve, 250));
        await db.close();
        await rm(socketDir, { recursive: true, force: true });
        await lock.release();
      },
    };
  } catch (e) {
    await rm(socketDir, { recursive: true, force: true });
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
      ? `  read-only: clients run as role ${SERVE_ROLE} (SELECT on schema efa); COPY to files or programs, server file functions and role changes are refused (--write allows row changes)`
      : `  WRITES ALLOWED (--write): clients may change rows of schema efa as role ${SERVE_ROLE}`,
  ];
}

interface ServeCliOptions extends Pick<CommonOptions, 'db' | 'logFormat' | 'verbose' | 'debug'> {
  host: string;
  port: number;
  write?: boolean;
  passwordEnv: string;
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
    .option('--password-env <VAR>', 'environment variable holding the password clients must give (never an argument)', defaultPasswordEnv);
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
      onRefused: (what, remote) => log.warn(`refused from ${remote}: ${what}`),
    });
    process.stdout.write([`serving ${url} on ${served.host}:${served.port}; Ctrl-C stops it`, ...connectionHelp(served), ''].join('\n'));
    if (!isLoopback(served.host)) {
      log.warn(`serving on ${served.host}: every machine that reaches port ${served.port} can try the password; there is no TLS, so use it on a trusted network only`);
    }
    log.info('serving the embedded database', { host: served.host, port: served.port, readOnly: served.readOnly, passwordRequired: served.password });
    await new Promise<void>((done) => {
      const stop = (): void => void served.stop().then(done);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}
