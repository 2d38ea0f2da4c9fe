import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openDb, type Db } from '../../src/db/index.js';

export interface TestDb {
  readonly db: Db;
  /** The URL to give a subprocess or the CLI (`--db`). */
  readonly url: string;
  dispose(): Promise<void>;
}

export interface TestDbUrl {
  /** For `--db` of a subprocess; PGlite allows one process per data directory, so don't open it here too. */
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database with PostGIS: its own database on a server, or a copy of the PGlite template. */
export async function createTestDbUrl(): Promise<TestDbUrl> {
  const target = inject('dbTarget');
  if (target.kind === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'efa-sync-test-'));
    await cp(target.templateDir, dir, { recursive: true });
    return { url: `pglite:${dir}`, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `efa_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(target.url);
  u.pathname = `/${name}`;
  const ext = new pg.Client({ connectionString: u.toString() });
  await ext.connect();
  await ext.query('CREATE EXTENSION IF NOT EXISTS postgis');
  await ext.end();
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: target.url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A fresh database for one test file, opened. */
export async function openTestDb(): Promise<TestDb> {
  const created = await createTestDbUrl();
  const db = await openDb(created.url);
  return { db, url: created.url, dispose: async () => (await db.close(), await created.drop()) };
}

export function dbKind(): 'postgres' | 'pglite' {
  return inject('dbTarget').kind;
}
