import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely, PGliteDialect, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ConfigError } from '../errors.js';
import { redactUrl as redactUrlByName } from '../util/redact.js';
import { LockedError, lockDataDir, releaseJobKey, takeJobKey } from './lock.js';
import type { Database } from './tables.js';

/** One open database, PostgreSQL server or embedded PGlite, behind the same Kysely interface. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly kind: 'postgres' | 'pglite';
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
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Stops this process's work on the database, for a process about to exit (SIGTERM, SIGINT, a lost
   * lease): no connection is handed out any more, and each statement running on one of its
   * connections is cancelled from a connection of its own (pg_cancel_backend). A server otherwise
   * goes on executing a statement whose client has gone until it ends, minutes or hours later.
   * PGlite runs inside the process and ends with it: nothing to do.
   */
  stop(): Promise<void>;
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
}

/**
 * The server refused the database URL itself: the database does not exist, or the role or its
 * password is refused. Configuration, not a lost database: exit 2, with what to do.
 */
export class DatabaseRefusedError extends ConfigError {
  override name = 'DatabaseRefusedError';
}

/** A transaction: queries through Kysely, and COPY … FROM of text-format rows, on its one connection. */
export interface Tx {
  readonly kysely: Kysely<Database>;
  /** COPY `table` (`columns`) FROM text-format data (see copy.ts); returns when the rows are in. */
  copyIn(table: string, columns: readonly string[], text: Iterable<string>): Promise<void>;
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

/** `--db`, else `$DATABASE_URL`, else the embedded default. */
export function dbUrlFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return option ?? env['DATABASE_URL'] ?? defaultDbUrl;
}

/** A database URL as safe to show: the password and secret-named parameters replaced (src/util/redact.ts). */
export function redactUrl(url: string): string {
  if (!/^postgres(ql)?:/.test(url)) return url;
  return redactUrlByName(url);
}

type PGliteInstance = import('@electric-sql/pglite').PGlite;

async function openPglite(location: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { postgis } = await import('@electric-sql/pglite-postgis');
  const memory = location === 'memory' || location === 'memory:' || location === '';
  const dataDir = memory ? undefined : resolve(location);
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const dirLock = dataDir ? await lockDataDir(dataDir) : undefined;
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    extensions: { postgis },
    parsers: { [pgOid.int8]: (v: string) => v, [pgOid.date]: (v: string) => v },
  });
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  // PGlite is one connection, one session.
  const pgliteSession = new Set<string>();
  return {
    kysely,
    kind: 'pglite',
    displayUrl: memory ? 'pglite:memory' : `pglite:${dataDir}`,
    exec: async (script) => {
      try {
        await pglite.exec(script);
      } catch (e) {
        if (pglite.isInTransaction?.()) await pglite.exec('ROLLBACK');
        throw e;
      }
    },
    lockJob: async (job) => {
      await dirLock?.update({ job });
      // The data directory is this process's until it exits: a PGlite lock cannot be lost.
      return { holds: async (runId) => dirLock?.update({ runId }), lost: new AbortController().signal, release: async () => undefined };
    },
    // PGlite is one connection, locked by its exclusive transaction; queries of the transaction must
    // go through its `tx` (the instance itself would wait for the lock). A Kysely over that `tx`
    // builds them, and COPY FROM '/dev/blob' (whose `blob` option does not pass through Kysely) uses it too.
    transaction: (fn) =>
      pglite
        .transaction(async (tx) => {
          const onTx = { closed: false, ready: true, query: tx.query.bind(tx), close: async () => undefined } as unknown as PGliteInstance;
          return fn({
            session: pgliteSession,
            kysely: new Kysely<Database>({ dialect: new PGliteDialect({ pglite: onTx }) }),
            copyIn: async (table, columns, text) => {
              await tx.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([...text]) });
            },
          });
        })
        .catch((e: unknown) => {
          // What the transaction created for the session is rolled back with it.
          pgliteSession.clear();
          throw e;
        }),
    // In-process: a stopping process takes its statements with it.
    stop: async () => undefined,
    close: async () => {
      await kysely.destroy();
      if (!pglite.closed) await pglite.close();
      await dirLock?.release();
    },
  };
}

/**
 * Both drivers return the same JS types: bigint as string (run ids exceed 2^53 only in theory, but
 * pg's default is a string and PGlite's a number) and date as 'YYYY-MM-DD' (a Date would shift by
 * the local time zone).
 */
const pgOid = { int8: 20, date: 1082 } as const;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgOid.date ? (v: string) => v : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/** What the server's SQLSTATE says about a connection it refused, when the URL is at fault. */
function refusal(error: unknown, url: string): DatabaseRefusedError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const serverSaid = error instanceof Error ? error.message : String(error);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const where = `${target.hostname}${target.port ? `:${target.port}` : ''}`;
  const database = decodeURIComponent(target.pathname.slice(1)) || decodeURIComponent(target.username) || 'postgres';
  const user = decodeURIComponent(target.username) || '(the default user)';
  const shown = redactUrl(url);
  if (code === '3D000') {
    return new DatabaseRefusedError(
      `database "${database}" does not exist on ${where} (${shown}): create it (createdb -h ${target.hostname}${target.port ? ` -p ${target.port}` : ''} ${database}, or CREATE DATABASE ${database}; ` +
        'then CREATE EXTENSION postgis in it), or correct the database name in --db / $DATABASE_URL',
      'db',
    );
  }
  // 28P01: password refused; 28000: no such role, or no pg_hba.conf entry for this host and user.
  if (code === '28P01' || code === '28000') {
    return new DatabaseRefusedError(
      `${where} refused user ${user} (${serverSaid}; ${shown}): check the user name and password in --db / $DATABASE_URL ` +
        '(or PGPASSWORD, ~/.pgpass), and that pg_hba.conf lets this host connect as that user',
      'db',
    );
  }
  return undefined;
}

async function openPostgres(url: string, options: OpenDbOptions): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    application_name: 'efa-sync',
    types: pgTypes,
    ...(options.statementTimeoutMs !== undefined ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // The server process behind each pooled connection, so `stop` can cancel what they run.
  const backends = new Set<number>();
  const backendOf = (client: pg.PoolClient): number | undefined => (client as pg.PoolClient & { processID?: number | null }).processID ?? undefined;
  pool.on('connect', (client) => {
    const pid = backendOf(client);
    if (pid !== undefined) backends.add(pid);
  });
  pool.on('remove', (client) => {
    const pid = backendOf(client);
    if (pid !== undefined) backends.delete(pid);
  });
  let stopped = false;
  const connect = async (): Promise<pg.PoolClient> => {
    if (stopped) throw new Error('the database connection is closing: this process is stopping');
    return pool.connect();
  };
  // One connection now: a database that does not exist or a refused role is a configuration error
  // to report before anything starts, not a "lost database" halfway. Other failures (the server is
  // down or restarting) are left to the first query, where they are what they are.
  try {
    (await pool.connect()).release();
  } catch (error) {
    const refused = refusal(error, url);
    if (refused) {
      await pool.end().catch(() => undefined);
      throw refused;
    }
  }
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect, end: () => pool.end(), options: pool.options } }) });
  return {
    kysely,
    kind: 'postgres',
    displayUrl: redactUrl(url),
    ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
    // Without parameters pg uses the simple query protocol, which accepts several statements.
    exec: async (script) => {
      const client = await connect();
      try {
        await client.query(script);
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    lockJob: async (job) => {
      const client = await connect();
      // A checked-out client is not covered by pool.on('error'): a lost lock connection must not
      // crash the process with an unhandled 'error' event; it ends the lock (`lost`) instead.
      const lost = new AbortController();
      let released = false;
      const onLost = (): void => {
        if (!released) lost.abort();
      };
      client.on('error', onLost);
      client.on('end', onLost);
      // A key a reader of the warehouse cannot know (see takeJobKey).
      const held = await takeJobKey(client, job).catch((e: unknown) => {
        client.release();
        throw e;
      });
      if (held === undefined) {
        client.release();
        const holder = await pool
          .query<{ run_id: string; started_at: Date; pid: number | null; host: string | null }>(
            `SELECT run_id, started_at, pid, host FROM efa.runs WHERE job_name = $1 AND status = 'running' ORDER BY run_id DESC LIMIT 1`,
            [job],
          )
          .then((r) => r.rows[0])
          .catch(() => undefined);
        const who = holder
          ? `run ${holder.run_id} (pid ${holder.pid ?? '?'} on ${holder.host ?? '?'}, started ${holder.started_at.toISOString()})`
          : 'another efa-sync process';
        throw new LockedError(`job ${job} is already being run by ${who}; exit 4, try again when it has finished`);
      }
      return {
        holds: async () => undefined,
        lost: lost.signal,
        release: async () => {
          released = true;
          await releaseJobKey(client, job, held).catch(() => undefined);
          client.release();
        },
      };
    },
    transaction: async (fn) => {
      const client = await connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn({ kysely: kyselyOn(client), session: sessionOf(client), copyIn: (table, columns, text) => copyInto(client, table, columns, text) });
        await client.query('COMMIT');
        return result;
      } catch (e) {
        // What the transaction created for the session is rolled back with it.
        sessionOf(client).clear();
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw e;
      } finally {
        client.release(broken);
      }
    },
    stop: async () => {
      stopped = true;
      if (backends.size === 0) return;
      // A connection of its own, outside the pool: every pooled one may be busy or blocked.
      const canceller = new pg.Client({ connectionString: url, application_name: 'efa-sync (stopping)', connectionTimeoutMillis: 2_000 });
      canceller.on('error', () => undefined);
      try {
        await canceller.connect();
        await canceller.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [[...backends]]);
      } finally {
        await canceller.end().catch(() => undefined);
      }
    },
    close: () => kysely.destroy(),
  };
}

/** Per pooled connection: what its session holds (a new connection starts empty). */
const sessions = new WeakMap<pg.PoolClient, Set<string>>();
function sessionOf(client: pg.PoolClient): Set<string> {
  let session = sessions.get(client);
  if (!session) sessions.set(client, (session = new Set()));
  return session;
}

/** A Kysely bound to one checked-out client (inside a transaction the caller opened). */
function kyselyOn(client: pg.PoolClient): Kysely<Database> {
  const pool: PostgresPool = {
    // Kysely releases what it acquires; the caller owns this client, so release is a no-op.
    connect: async () =>
      ({ query: (...args: Parameters<pg.PoolClient['query']>) => client.query(...args), release: () => undefined }) as unknown as pg.PoolClient,
    end: async () => undefined,
    options: {},
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

async function copyInto(client: pg.PoolClient, table: string, columns: readonly string[], text: Iterable<string>): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(text), stream);
}

/** Opens `postgres://…` / `postgresql://…` or `pglite:<dir>` (`pglite:memory` for a throwaway one). */
export async function openDb(url: string, options: OpenDbOptions = {}): Promise<Db> {
  if (url.startsWith('pglite:')) return openPglite(url.slice('pglite:'.length));
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  throw new ConfigError(`--db: unsupported database URL "${redactUrl(url)}": use postgres://… or pglite:<dir>`, 'db');
}
