import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, rmdir, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../util/package-root.js';
import { workerEntry } from '../util/worker-entry.js';
import { pgliteCacheDir } from './pglite-cache.js';

/*
 * A new embedded database is a copy of a template: a data directory with PostGIS created and every
 * migration applied, made once per installed version in the cache (pglite-cache.ts). A fresh PGlite
 * database costs initdb, CREATE EXTENSION postgis and every migration (8.5 s measured, issue 32); a copy
 * costs the copy (~40 MB) and an open, and the migrate that follows finds nothing to do. The template
 * is keyed by everything that decides its bytes, so a changed migration, a definitions file beside
 * them or another PGlite never hands out a stale one: the sql/ folder (all of it, recursively), the
 * package's version, PGlite's and the PostGIS bundle's.
 */

/** Set to 0 to create every new embedded database from scratch (initdb, PostGIS, migrations). */
export const TEMPLATE_ENV = 'EFA_SYNC_PGLITE_TEMPLATE';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
}

/** What decides a template's bytes, hashed: the name of its directory in the cache. */
export async function templateKey(sqlDir = join(packageRoot, 'sql')): Promise<string> {
  const hash = createHash('sha256');
  const require = createRequire(import.meta.url);
  const pgliteDir = dirname(dirname(require.resolve('@electric-sql/pglite')));
  const postgisBundle = join(dirname(require.resolve('@electric-sql/pglite-postgis')), 'postgis.tar.gz');
  const pkg = (file: string): Promise<string> => readFile(file, 'utf8').then((t) => String((JSON.parse(t) as { version?: unknown }).version));
  hash.update(`efa-sync ${await pkg(join(packageRoot, 'package.json'))}\0pglite ${await pkg(join(pgliteDir, 'package.json'))}\0`);
  const bundle = await stat(postgisBundle);
  hash.update(`postgis ${bundle.size} ${Math.round(bundle.mtimeMs)}\0`);
  for (const file of await filesUnder(sqlDir)) {
    hash.update(`${relative(sqlDir, file)}\0`);
    hash.update(await readFile(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

/** Whether `dir` holds no database yet: absent, or an empty directory. */
async function isNewDataDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : undefined));
  return entries !== undefined && entries.length === 0;
}

/** A template unused this long belongs to a version no longer run here (~40 MB each): removed. */
export const STALE_TEMPLATE_MS = 7 * 24 * 3600 * 1000;
const TEMPLATE_NAME = /^pglite-template-[0-9a-f]+(\.building-.+)?$/;

/**
 * Removes what other versions left in the cache: their templates once unused for STALE_TEMPLATE_MS
 * (each use touches a template, so a version still run here keeps its own), and half-built ones a
 * crash left. A copy still reading a template being removed fails, and that process falls back to
 * creating its database itself (seedFromTemplate), so removal never costs a database.
 */
async function pruneOtherTemplates(cache: string, current: string, now = Date.now()): Promise<void> {
  for (const name of await readdir(cache).catch(() => [] as string[])) {
    if (!TEMPLATE_NAME.test(name) || name === basename(current)) continue;
    const path = join(cache, name);
    const age = now - (await stat(path).then((s) => s.mtimeMs, () => now));
    if (age > STALE_TEMPLATE_MS) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** PostGIS and every migration in the new database `dir`, on a worker thread (pglite-template-worker.ts). */
async function buildTemplate(dir: string): Promise<void> {
  const { url, execArgv } = workerEntry('pglite-template-worker', import.meta.url);
  const worker = new Worker(url, { workerData: { dir }, execArgv });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the embedded database's template could not be built (its thread exited with code ${code})`))));
  });
}

/** The migrated template of this installed version, built in the cache when it is not there yet. */
async function migratedTemplate(cache: string): Promise<string> {
  const dir = join(cache, `pglite-template-${await templateKey()}`);
  await pruneOtherTemplates(cache, dir);
  if (await stat(join(dir, 'PG_VERSION')).then(() => true, () => false)) {
    const now = new Date();
    await utimes(dir, now, now).catch(() => undefined);
    return dir;
  }
  // Built aside and renamed into place: a process that crashes half way, or a second first start at
  // the same moment, never leaves a half template behind a name that says it is complete.
  const building = await mkdtemp(`${dir}.building-`);
  try {
    await buildTemplate(building);
    await rename(building, dir).catch(async (e: NodeJS.ErrnoException) => {
      // Another process renamed its own first: that one is as good.
      if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
    await rm(`${building}.efa-sync.lock`, { force: true });
  }
  return dir;
}

/**
 * Makes a new embedded database at `location` a copy of the migrated template; true when it did.
 * The caller holds the directory's lock (openPglite's prepareNew), or owns the directory outright.
 * Nothing happens to a directory that holds anything, when the template is switched off
 * (EFA_SYNC_PGLITE_TEMPLATE=0) or when no cache directory can be written: PGlite then creates the
 * database itself, as before. The copy is made beside the directory and renamed into place, so an
 * interrupted copy is never taken for a database.
 */
export async function seedFromTemplate(location: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env[TEMPLATE_ENV] === '0') return false;
  const given = resolve(location);
  const target = await realpath(given).catch(() => given);
  if (!(await isNewDataDir(target))) return false;
  const cache = await pgliteCacheDir(env);
  if (cache === undefined) return false;
  const template = await migratedTemplate(cache);
  const copy = join(dirname(target), `.${basename(target)}.seeding-${process.pid}`);
  try {
    await mkdir(dirname(target), { recursive: true });
    await cp(template, copy, { recursive: true });
    await rmdir(target).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    await rename(copy, target);
    return true;
  } catch {
    // Another process made the database first (the directory is no longer empty), or the parent is
    // not writable: PGlite opens, or creates, what is there.
    return false;
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}
