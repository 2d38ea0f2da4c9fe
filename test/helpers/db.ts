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

export interface TestDbOptions {
  /**
   * false: PostGIS only, no migration applied, for the tests of migrating itself (an old sql/ folder,
   * the `applied` list, a schema not there yet). By default every migration of this checkout is
   * applied already: global setup migrated one template, so a test file does not pay the migrations.
   */
  readonly migrated?: boolean;
}

/**
 * A fresh database with PostGIS, migrated unless `migrated: false`: a copy of a PGlite template
 * directory, or on a server a database created from a template database (CREATE DATABASE … TEMPLATE).
 */
export async function createTestDbUrl(options: TestDbOptions = {}): Promise<TestDbUrl> {
  const target = inject('dbTarget');
  const migrated = options.migrated ?? true;
  if (target.kind === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'efa-sync-test-'));
    await cp(migrated ? target.migratedTemplateDir : target.templateDir, dir, { recursive: true });
    return { url: `pglite:${dir}`, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `efa_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${migrated ? ` TEMPLATE ${target.migratedTemplate}` : ''}`);
  } finally {
    await admin.end();
  }
  const u = new URL(target.url);
  u.pathname = `/${name}`;
  if (!migrated) {
    const ext = new pg.Client({ connectionString: u.toString() });
    await ext.connect();
    await ext.query('CREATE EXTENSION IF NOT EXISTS postgis');
    await ext.end();
  }
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

/** A fresh database for one test file, opened (migrated unless `migrated: false`, see createTestDbUrl). */
export async function openTestDb(options: TestDbOptions = {}): Promise<TestDb> {
  const created = await createTestDbUrl(options);
  const db = await openDb(created.url);
  return { db, url: created.url, dispose: async () => (await db.close(), await created.drop()) };
}

export function dbKind(): 'postgres' | 'pglite' {
  return inject('dbTarget').kind;
}
