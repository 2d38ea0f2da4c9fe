import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createRunRoot, sweepStaleTemp } from './helpers/temp-root.js';

/**
 * Decides once which database the DB tests run against, in this order:
 * TEST_DATABASE_URL (a server with PostGIS available), a PostGIS container when a Docker engine
 * answers, else embedded PGlite + PostGIS. For PGlite a template data directory with PostGIS
 * created is built once here; each test file copies it, which is far cheaper than a fresh initdb.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    dbTarget: { kind: 'postgres'; url: string } | { kind: 'pglite'; templateDir: string };
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
  const parent = tmpdir();
  await sweepStaleTemp(parent);
  const root = await createRunRoot(parent);
  process.env['TMPDIR'] = root;
  const removeRoot = async (): Promise<void> => {
    process.env['TMPDIR'] = parent;
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
    project.provide('dbTarget', { kind: 'postgres', url });
    return async () => undefined;
  }
  const docker = await dockerPostgis();
  if (docker) {
    project.provide('dbTarget', { kind: 'postgres', url: docker.url });
    return docker.stop;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { postgis } = await import('@electric-sql/pglite-postgis');
  const templateDir = await mkdtemp(join(tmpdir(), 'efa-sync-pglite-template-'));
  const pglite = await PGlite.create({ dataDir: templateDir, extensions: { postgis } });
  await pglite.exec('CREATE EXTENSION IF NOT EXISTS postgis');
  await pglite.close();
  project.provide('dbTarget', { kind: 'pglite', templateDir });
  return async () => rm(templateDir, { recursive: true, force: true });
}
