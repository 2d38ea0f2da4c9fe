import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { dbUrlFrom, redactUrl } from '../db/index.js';
import { lockDataDir } from '../db/lock.js';
import { ConfigError } from '../errors.js';
import { addCommonOptions, loggerFor, positiveNumber, type CommonOptions } from './common.js';

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
}

export interface Served {
  readonly host: string;
  readonly port: number;
  readonly readOnly: boolean;
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

/**
 * Opens an embedded PGlite + PostGIS database over the PostgreSQL wire protocol. PGlite is one
 * session shared by every connection, so "read-only" is that session's default_transaction_read_only:
 * advisory, as on any server (a client may SET it off); it keeps tools from writing by accident.
 */
export async function startServe(options: ServeOptions): Promise<Served> {
  const dataDir = resolve(options.dataDir);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new ConfigError(`no embedded database at ${dataDir}: npm start or efa-sync run <job> creates it`, 'db');
  }
  // The same exclusive lock a run takes: PGlite must never be opened by two processes at once.
  const lock = await lockDataDir(dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { postgis } = await import('@electric-sql/pglite-postgis');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const db = await PGlite.create({ dataDir, extensions: { postgis } });
    const readOnly = options.write !== true;
    if (readOnly) await db.exec('SET default_transaction_read_only = on');
    const host = options.host ?? '127.0.0.1';
    const server = new PGLiteSocketServer({ db, host, port: options.port ?? defaultServePort, maxConnections: options.maxConnections ?? 16 });
    server.addEventListener('connection', () => {
      // A previous client may have turned it off: each new connection starts read-only again.
      if (readOnly) void db.exec('SET default_transaction_read_only = on').catch(() => undefined);
    });
    await server.start();
    const conn = server.getServerConn();
    const port = Number(conn.slice(conn.lastIndexOf(':') + 1));
    return {
      host,
      port,
      readOnly,
      psql: psqlCommand(host, port),
      stop: async () => {
        await server.stop();
        // Each detached socket still finishes its 'close' handling on a later tick, asking PGlite
        // whether a transaction is open; closing PGlite under it crashes the process. Let those run first.
        await new Promise((resolve) => setTimeout(resolve, 250));
        await db.close();
        await lock.release();
      },
    };
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/** The connection a desktop GIS or BI tool needs, as the lines `serve` and `npm start` print. */
export function connectionHelp(served: Pick<Served, 'host' | 'port' | 'psql' | 'readOnly'>): string[] {
  const host = served.host === '0.0.0.0' || served.host === '::' ? '127.0.0.1' : served.host;
  return [
    `  psql:   ${served.psql}`,
    `  QGIS:   Layer > Add Layer > Add PostGIS Layers > New: host ${host}, port ${served.port}, database postgres, user postgres, no password, SSL mode disable; tables in schema efa`,
    `  others: DBeaver, Metabase, ogr2ogr: the same host/port/database/user, e.g. ogrinfo PG:"host=${host} port=${served.port} dbname=postgres user=postgres" efa.stops`,
    served.readOnly ? '  read-only by default (each session starts with default_transaction_read_only = on; --write allows writes)' : '  WRITES ALLOWED (--write)',
  ];
}

interface ServeCliOptions extends Pick<CommonOptions, 'db' | 'logFormat' | 'verbose' | 'debug'> {
  host: string;
  port: number;
  write?: boolean;
}

export function registerServe(program: Command): void {
  const cmd = program
    .command('serve')
    .description('open the embedded database to psql, QGIS, DBeaver and BI tools over the PostgreSQL protocol (read-only by default)')
    .option('--host <address>', 'address to listen on (0.0.0.0 opens it to the network: there is no password)', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', (v) => (v === '0' ? 0 : positiveNumber('--port')(v)), defaultServePort)
    .option('--write', 'allow writes (default: every transaction starts read-only)');
  addCommonOptions(cmd, ['db', 'log']).action(async (opts: ServeCliOptions) => {
    const url = dbUrlFrom(opts.db);
    if (!url.startsWith('pglite:')) {
      throw new NotEmbeddedError(`serve opens an embedded database (pglite:<dir>); ${redactUrl(url)} is a server already: connect to it directly`, 'db');
    }
    const location = url.slice('pglite:'.length);
    if (location === '' || location.startsWith('memory')) throw new NotEmbeddedError('serve needs a pglite:<dir> on disk, not an in-memory database', 'db');
    const log = loggerFor(opts);
    const served = await startServe({ dataDir: location, host: opts.host, port: opts.port, write: opts.write === true });
    process.stdout.write([`serving ${url} on ${served.host}:${served.port}; Ctrl-C stops it`, ...connectionHelp(served), ''].join('\n'));
    log.info('serving the embedded database', { host: served.host, port: served.port, readOnly: served.readOnly });
    await new Promise<void>((done) => {
      const stop = (): void => void served.stop().then(done);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}
