import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { DatabaseRefusedError, pgOid, redactUrl, type Db, type OpenDbOptions } from './connect.js';
import { LockedError, releaseJobKey, takeJobKey } from './lock.js';
import type { Database } from './tables.js';

/** A PostgreSQL server through a pool of pg connections; the job lock on a connection of its own. */
/** Dates as 'YYYY-MM-DD' and bigints as strings, as PGlite reads them (connect.ts, pgOid). */
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
  // The client asked for TLS (sslmode=require or stricter) and the server offers none: no retry
  // changes that, so it is configuration (exit 2), named by where the demand came from.
  if (/does not support SSL/i.test(serverSaid)) {
    const mode = target.searchParams.get('sslmode');
    const from = mode !== null ? `sslmode=${mode} in the database URL (${shown})` : `PGSSLMODE=${process.env['PGSSLMODE'] ?? '?'}`;
    return new DatabaseRefusedError(
      `${where} offers no TLS, and ${from} requires it: enable ssl on the server, or connect with sslmode=prefer / disable ` +
        `(${mode !== null ? 'in --db / $DATABASE_URL' : 'unset PGSSLMODE or set it to prefer'}) where the network is trusted`,
      mode !== null ? 'db' : 'PGSSLMODE',
    );
  }
  return undefined;
}

export async function openPostgres(url: string, options: OpenDbOptions): Promise<Db> {
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
    transaction: async (fn, o = {}) => {
      const client = await connect();
      let broken = false;
      try {
        // BEGIN and the opening statements in one simple-protocol message (no parameters), which
        // pg answers with one result per statement: a round trip less per transaction.
        const begun = await client.query<Record<string, unknown>>(o.opening === undefined ? 'BEGIN' : `BEGIN; ${o.opening}`);
        const opened = o.opening === undefined ? [] : ((begun as unknown as pg.QueryResult<Record<string, unknown>>[])[1]?.rows ?? []);
        const result = await fn({
          opened,
          kysely: kyselyOn(client),
          session: sessionOf(client),
          copyIn: (table, columns, text) => copyInto(client, table, columns, text),
          copyOut: (query) => copyOutOf(client, query),
        });
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
    lastWord: async (fn) => {
      const last = new pg.Client({ connectionString: url, application_name: 'efa-sync (stopping)', connectionTimeoutMillis: 2_000, types: pgTypes });
      last.on('error', () => undefined);
      await last.connect();
      try {
        await last.query("SET lock_timeout = '2s'");
        return await fn(kyselyOnClient(last));
      } finally {
        await last.end().catch(() => undefined);
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

/** A Kysely bound to one client of its own (not pooled); the caller ends it. */
function kyselyOnClient(client: pg.Client): Kysely<Database> {
  return kyselyOn(client as unknown as pg.PoolClient);
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

async function copyOutOf(client: pg.PoolClient, query: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(`COPY (${query}) TO STDOUT`))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
