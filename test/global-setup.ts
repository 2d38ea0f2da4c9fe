import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../src/db/migrate.js';
import { CACHE_DIR_ENV } from '../src/db/pglite-cache.js';
import { openDb } from '../src/db/open.js';
import { seedFromTemplate } from '../src/db/pglite-template.js';
import { ensureFreshBuild } from './helpers/fresh-build.js';
import { createRunRoot, sweepStaleTemp } from './helpers/temp-root.js';

/**
 * Decides once which database the DB tests run against, in this order:
 * TEST_DATABASE_URL (a server with PostGIS available), a PostGIS container when a Docker engine
 * answers, else embedded PGlite + PostGIS. Two templates are built once here, one with PostGIS
 * created and one migrated as well: each test file copies one (test/helpers/db.ts), which is far
 * cheaper than a fresh initdb, and the migrated one spares every file the migrations (28 on PGlite:
 * seconds of CPU per file, times ~70 files).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    dbTarget:
      | { kind: 'postgres'; url: string; migratedTemplate: string }
      | { kind: 'pglite'; templateDir: string; migratedTemplateDir: string };
  }
}

async function dockerPostgis(): Promise<{ url: string; stop: () => Promise<void> } | undefined> {
  if (process.env['EFA_SYNC_TEST_DOCKER'] === '0') return undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
  } catch {
    return undefined; // no Docker engine here: fall back to PGlite
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgis/postgis:16-3.4').start();
  return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
}

/**
 * Every temporary folder of the run (test files, helpers, the CLIs they spawn) goes into one root
 * (TMPDIR, inherited by the workers and their children), removed at teardown; what interrupted runs
 * left is swept first (test/helpers/temp-root.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureFreshBuild();
  const parent = tmpdir();
  await sweepStaleTemp(parent);
  const root = await createRunRoot(parent);
  process.env['TMPDIR'] = root;
  // What the embedded database caches (the lean PostGIS bundle, the migrated template of a new
  // database: src/db/pglite-cache.ts) stays in the run's root too, not in the user's ~/.cache.
  const cacheBefore = process.env[CACHE_DIR_ENV];
  process.env[CACHE_DIR_ENV] = join(root, 'cache');
  const removeRoot = async (): Promise<void> => {
    process.env['TMPDIR'] = parent;
    if (cacheBefore === undefined) delete process.env[CACHE_DIR_ENV];
    else process.env[CACHE_DIR_ENV] = cacheBefore;
    await rm(root, { recursive: true, force: true });
  };
  try {
    const teardown = await selectDatabase(project);
    return async () => {
      try {
        await teardown();
      } finally {
        await removeRoot();
      }
    };
  } catch (error) {
    await removeRoot();
    throw error;
  }
}

async function selectDatabase(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env['TEST_DATABASE_URL'];
  if (url) {
    const template = await migratedTemplateDatabase(url);
    project.provide('dbTarget', { kind: 'postgres', url, migratedTemplate: template.name });
    return template.drop;
  }
  const docker = await dockerPostgis();
  if (docker) {
    const template = await migratedTemplateDatabase(docker.url).catch(async (error: unknown) => {
      await docker.stop();
      throw error;
    });
    project.provide('dbTarget', { kind: 'postgres', url: docker.url, migratedTemplate: template.name });
    return async () => (await template.drop(), await docker.stop());
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { pgliteEngine } = await import('../src/db/pglite-engine.js');
  const templateDir = await mkdtemp(join(tmpdir(), 'efa-sync-pglite-template-'));
  const migratedTemplateDir = await mkdtemp(join(tmpdir(), 'efa-sync-pglite-template-'));
  const removeTemplates = async (): Promise<void> => {
    await rm(templateDir, { recursive: true, force: true });
    await rm(migratedTemplateDir, { recursive: true, force: true });
  };
  try {
    const pglite = await PGlite.create({ dataDir: templateDir, ...(await pgliteEngine()) });
    await pglite.exec('CREATE EXTENSION IF NOT EXISTS postgis');
    await pglite.close();
    // The migrated one is a copy of the template every CLI the tests spawn seeds a new database from
    // (src/db/pglite-template.ts, in the run's cache folder): built once here, before the workers
    // start, instead of once more by the first CLIs of both workers at the same moment.
    // With EFA_SYNC_PGLITE_TEMPLATE=0 there is none: the copy of the PostGIS one is migrated here.
    if (!(await seedFromTemplate(migratedTemplateDir))) {
      await cp(templateDir, migratedTemplateDir, { recursive: true });
      const db = await openDb(`pglite:${migratedTemplateDir}`);
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
    }
  } catch (error) {
    await removeTemplates();
    throw error;
  }
  project.provide('dbTarget', { kind: 'pglite', templateDir, migratedTemplateDir });
  return removeTemplates;
}

/**
 * A database on the server with PostGIS and every migration applied, for CREATE DATABASE … TEMPLATE:
 * a file-level copy, faster than migrating each test file's database. Nothing stays connected to it
 * (a template in use cannot be copied). Named after this process: several suites share one server.
 */
async function migratedTemplateDatabase(url: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `efa_test_template_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const drop = (): Promise<void> => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  try {
    const u = new URL(url);
    u.pathname = `/${name}`;
    const db = await openDb(u.toString());
    try {
      await db.exec('CREATE EXTENSION IF NOT EXISTS postgis');
      await migrate(db);
    } finally {
      await db.close();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, drop };
}
