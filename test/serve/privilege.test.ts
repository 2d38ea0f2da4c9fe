import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import { serveBuilt, type Serving } from './serving.js';

/**
 * Issue 54.4/54.6 and 53.3: what privilege alone refuses a served client (the statement check off,
 * EFA_SERVE_TEST_NO_GUARD), and what clients send on connect, dump and reset, served as a
 * read-only PostgreSQL role would answer it.
 */

let dir: string;
let dataDir: string;

const clientOf = (port: number): pg.Client => new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 60_000 });

async function withClient<T>(port: number, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = clientOf(port);
  await c.connect();
  c.on('error', () => undefined);
  try {
    return await work(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The SQLSTATE a statement fails with, or 'ran'. */
const outcome = (c: pg.Client, text: string): Promise<string> =>
  c.query(text).then(
    () => 'ran',
    (e: { code?: string }) => e.code ?? 'no code',
  );

async function superuser<T>(work: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> {
  const db = await openDb(`pglite:${dataDir}`);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

async function serving(args: readonly string[], guard: boolean, work: (served: Serving) => Promise<void>): Promise<void> {
  const served = await serveBuilt(dataDir, args, guard ? {} : { EFA_SERVE_TEST_NO_GUARD: '1' });
  try {
    await work(served);
  } finally {
    if (served.child.exitCode === null) served.child.kill('SIGTERM');
    await served.exited;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-privilege-'));
  dataDir = join(dir, 'db');
  await superuser(async (db) => {
    await migrate(db);
  });
}, 240_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What a reader could change of itself: settings kept for its role, its password, default privileges. */
const REFUSED_BY_PRIVILEGE: readonly string[] = [
  "ALTER ROLE efa_serve SET work_mem = '1GB'",
  "ALTER ROLE CURRENT_USER PASSWORD 'mine now'",
  'ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC',
  'SET default_transaction_read_only = off',
  'SET transaction_read_only = off; ALTER ROLE efa_serve SET work_mem = \'1GB\'',
  'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
  'BEGIN READ WRITE',
  "SELECT set_config('default_transaction_read_only', 'off', false)",
  "SELECT set_config('transaction_read_only', 'off', true); ALTER ROLE efa_serve RESET ALL",
  'SET standard_conforming_strings = off',
  "SET idle_session_timeout = '1s'",
  "SELECT set_config('idle_in_transaction_session_timeout', '1s', false)",
  "SET transaction_timeout = '1s'",
];

describe('a served reader, the statement check off: privilege alone', () => {
  it('cannot alter its role, its password or default privileges, turn read-only off, or arm the engine\'s timers', async () => {
    await serving([], false, async (served) => {
      for (const text of REFUSED_BY_PRIVILEGE) {
        // 42501: refused by serve's pinned settings; 25006: PostgreSQL refuses it in a read-only transaction.
        expect(await withClient(served.port, (c) => outcome(c, text)), text).toMatch(/^(42501|25006)$/);
      }
      await withClient(served.port, async (c) => {
        // RESET, DEFAULT and RESET ALL give read-only's reset value: on.
        for (const reset of ['RESET default_transaction_read_only', 'SET default_transaction_read_only TO DEFAULT', 'RESET ALL']) {
          await c.query(reset);
          expect((await c.query('SHOW default_transaction_read_only')).rows, reset).toEqual([{ default_transaction_read_only: 'on' }]);
        }
        // set_config of an ordinary setting works, as pg_dump and pgAdmin call it.
        expect((await c.query("SELECT pg_catalog.set_config('search_path', '', false) AS v")).rows).toEqual([{ v: '' }]);
        expect((await c.query("SELECT set_config('bytea_output', 'hex', false) AS v")).rows).toEqual([{ v: 'hex' }]);
        expect((await c.query("SELECT current_user AS u, current_setting('is_superuser') AS s")).rows).toEqual([{ u: 'efa_serve', s: 'off' }]);
      });
    });
    const after = await superuser(async (db) => {
      const r = await sql<{ settings: number; password: boolean; defaults: number }>`
        SELECT (SELECT count(*)::int FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname LIKE 'efa_serve%') AS settings,
               (SELECT rolpassword IS NOT NULL FROM pg_authid WHERE rolname = 'efa_serve') AS password,
               (SELECT count(*)::int FROM pg_default_acl) AS defaults`.execute(db.kysely);
      return r.rows[0];
    });
    expect(after).toEqual({ settings: 0, password: false, defaults: 0 });
  }, 300_000);
});

describe('serve --write, the statement check off', () => {
  it('changes rows of the harvested relations, never the migration ledger, the runs ledger or the locks', async () => {
    await serving(['--write'], false, async (served) => {
      await withClient(served.port, async (c) => {
        expect(await outcome(c, 'DELETE FROM efa.schema_migrations')).toBe('42501');
        expect(await outcome(c, "INSERT INTO efa.runs DEFAULT VALUES")).toBe('42501');
        expect(await outcome(c, 'UPDATE efa.runs SET status = status')).toBe('42501');
        expect(await outcome(c, 'DELETE FROM efa.schema_definitions')).toBe('42501');
        expect(await outcome(c, 'DELETE FROM efa.run_tiles')).toBe('42501');
        expect(await outcome(c, 'UPDATE efa.pins SET name = name WHERE false')).toBe('ran');
        expect(await outcome(c, 'DELETE FROM efa.lines WHERE false')).toBe('ran');
      });
    });
    const migrations = await superuser(async (db) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.schema_migrations`.execute(db.kysely)).rows[0]?.n);
    expect(migrations).toBeGreaterThan(20);
  }, 300_000);
});

describe('what clients send on connect, dump and reset, the statement check on', () => {
  it('is answered as a read-only role: pg_dump and pgAdmin lines, LOCK ACCESS SHARE, DISCARD ALL, a syntax error with its position', async () => {
    await serving([], true, async (served) => {
      await withClient(served.port, async (c) => {
        await c.query("SELECT pg_catalog.set_config('search_path', '', false)");
        await c.query("SELECT set_config('bytea_output','hex',false)");
        await c.query('SET synchronize_seqscans TO off');
        await c.query('BEGIN');
        await c.query('LOCK TABLE efa.pins IN ACCESS SHARE MODE');
        expect(await outcome(c, 'LOCK TABLE efa.pins IN ACCESS EXCLUSIVE MODE')).toBe('42501');
        await c.query('ROLLBACK');
        await c.query("SET search_path = efa; SET DateStyle = 'German'; PREPARE mine AS SELECT 1");
        await c.query('DISCARD ALL');
        const state = await c.query(
          "SELECT current_user AS u, current_setting('default_transaction_read_only') AS ro, current_setting('search_path') AS path, current_setting('DateStyle') AS style, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared",
        );
        expect(state.rows).toEqual([{ u: 'efa_serve', ro: 'on', path: 'public', style: 'ISO, MDY', prepared: 0 }]);
        const syntax = await c.query('selec 1').then(
          () => undefined,
          (e: { code?: string; position?: string }) => ({ code: e.code, position: e.position }),
        );
        expect(syntax).toEqual({ code: '42601', position: '1' });
        expect((await c.query('SELECT 7 AS n')).rows).toEqual([{ n: 7 }]);
      });
      expect(served.stderr()).not.toMatch(/refused[^\n]*selec/);
    });
  }, 300_000);
});
