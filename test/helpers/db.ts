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

/** A fresh, empty database with PostGIS for one test file: its own database on a server, or a PGlite copy. */
export async function openTestDb(): Promise<TestDb> {
  const target = inject('dbTarget');
  if (target.kind === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'efa-sync-test-'));
    await cp(target.templateDir, dir, { recursive: true });
    const url = `pglite:${dir}`;
    const db = await openDb(url);
    return { db, url, dispose: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) };
  }
  const name = `efa_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(target.url);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = await openDb(url);
  await db.exec('CREATE EXTENSION IF NOT EXISTS postgis');
  return {
    db,
    url,
    dispose: async () => {
      await db.close();
      const c = new pg.Client({ connectionString: target.url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function dbKind(): 'postgres' | 'pglite' {
  return inject('dbTarget').kind;
}
