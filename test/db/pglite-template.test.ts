import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb, readMigrations } from '../../src/db/index.js';
import { CACHE_DIR_ENV } from '../../src/db/pglite-cache.js';
import { filterTar, tarEntries, unusedByEfaSync, writeBundle, type EmscriptenFs } from '../../src/db/pglite-postgis.js';
import { seedFromTemplate, TEMPLATE_ENV, templateKey } from '../../src/db/pglite-template.js';
import { dbKind } from '../helpers/db.js';

/** The entry names of a tar archive, read through filterTar's own walk. */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  filterTar(tar, (name) => (names.push(name), false));
  return names;
}

describe('the lean PostGIS bundle', () => {
  it('keeps postgis-3.so, its extension scripts and PROJ, and drops raster, topology and contrib', async () => {
    const bundle = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite-postgis')), 'postgis.tar.gz');
    const full = gunzipSync(await readFile(bundle));
    const lean = tarNames(filterTar(full, unusedByEfaSync));
    expect(lean).toEqual(expect.arrayContaining(['lib/postgresql/postgis-3.so', 'share/proj/proj.db', 'share/postgresql/extension/postgis.control']));
    expect(lean.some((n) => /^share\/postgresql\/extension\/postgis--3\.\d+\.\d+\.sql$/.test(n))).toBe(true);
    expect(lean.filter((n) => n.endsWith('.so'))).toEqual(['lib/postgresql/postgis-3.so']);
    expect(lean.some((n) => n.startsWith('share/postgresql/contrib/'))).toBe(false);
    // Everything else of the bundle is kept, byte for byte.
    const all = tarNames(full);
    expect(all.filter((n) => !unusedByEfaSync(n))).toEqual(lean);
    // 90 MB unpacked: a loaded machine takes a while to gunzip it.
  }, 180_000);
});

/** A tar of `files` (ustar; a name over 100 bytes gets a GNU long-name entry before it). */
function tarOf(files: Record<string, string>): Buffer {
  const block = (name: string, size: number, type: string): Buffer => {
    const h = Buffer.alloc(512);
    h.write(name.slice(0, 99), 0);
    h.write(size.toString(8).padStart(11, '0'), 124);
    h.write(type, 156);
    h.write('ustar\u000000', 257);
    return h;
  };
  const pad = (data: Buffer): Buffer => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
  const parts = Object.entries(files).flatMap(([name, text]) => {
    const data = Buffer.from(text);
    const long = name.length > 99 ? [block('././@LongLink', name.length + 1, 'L'), pad(Buffer.from(`${name}\0`))] : [];
    return [...long, block(name, data.length, '0'), pad(data)];
  });
  return Buffer.concat([...parts, Buffer.alloc(1024)]);
}

describe('writing the bundle into PGlite before PostgreSQL starts', () => {
  const longName = `share/postgresql/extension/${'x'.repeat(120)}.sql`;
  const tar = tarOf({ 'lib/postgresql/postgis-3.so': 'wasm', 'share/proj/proj.db': 'proj', [longName]: 'long' });

  /** A stand-in for Emscripten's module: what was written, made and preloaded. */
  function fakeModule(preload: 'ok' | 'fails' | 'absent'): { mod: EmscriptenFs; files: Map<string, string>; dirs: Set<string>; preloaded: string[] } {
    const files = new Map<string, string>();
    const dirs = new Set<string>(['/pglite']);
    const preloaded: string[] = [];
    const FS = {
      analyzePath: (path: string) => ({ exists: dirs.has(path) }),
      mkdirTree: (path: string) => void dirs.add(path),
      writeFile: (path: string, data: Uint8Array) => void files.set(path, Buffer.from(data).toString()),
    };
    const createPreloaded = (parent: string, name: string, data: Uint8Array, _r: boolean, _w: boolean, onload: () => void, onerror: () => void): void => {
      preloaded.push(`${parent}/${name}`);
      if (preload === 'ok') (files.set(`${parent}/${name}`, Buffer.from(data).toString()), onload());
      else onerror();
    };
    return { mod: { WASM_PREFIX: '/pglite', FS, ...(preload === 'absent' ? {} : { FS_createPreloadedFile: createPreloaded }) }, files, dirs, preloaded };
  }

  it('reads every entry, a GNU long name included, as views of the archive', () => {
    expect(tarEntries(tar).map((e) => [e.name, e.data.toString()])).toEqual([
      ['lib/postgresql/postgis-3.so', 'wasm'], ['share/proj/proj.db', 'proj'], [longName, 'long'],
    ]);
  });

  it('writes each file under WASM_PREFIX, making its folders, and preloads the shared library', () => {
    const { mod, files, dirs, preloaded } = fakeModule('ok');
    writeBundle(mod, tarEntries(tar));
    expect(preloaded).toEqual(['/pglite/lib/postgresql/postgis-3.so']);
    expect(Object.fromEntries(files)).toEqual({
      '/pglite/lib/postgresql/postgis-3.so': 'wasm', '/pglite/share/proj/proj.db': 'proj', [`/pglite/${longName}`]: 'long',
    });
    expect(dirs.has('/pglite/share/postgresql/extension')).toBe(true);
  });

  it('writes the shared library as a file for dlopen when preloading fails or does not exist', () => {
    for (const preload of ['fails', 'absent'] as const) {
      const { mod, files } = fakeModule(preload);
      writeBundle(mod, tarEntries(tar));
      expect(files.get('/pglite/lib/postgresql/postgis-3.so')).toBe('wasm');
    }
  });
});

describe('the template key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-sql-'));
    await writeFile(join(dir, '001_a.sql'), 'SELECT 1;');
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('changes with any file under the sql folder, a subfolder included', async () => {
    const first = await templateKey(dir);
    expect(await templateKey(dir)).toBe(first);
    await mkdir(join(dir, 'definitions'));
    await writeFile(join(dir, 'definitions', 'views.sql'), 'SELECT 2;');
    const withDefinitions = await templateKey(dir);
    expect(withDefinitions).not.toBe(first);
    await writeFile(join(dir, 'definitions', 'views.sql'), 'SELECT 3;');
    expect(await templateKey(dir)).not.toBe(withDefinitions);
  });
});

describe.runIf(dbKind() === 'pglite')('a new embedded database from the migrated template', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'efa-sync-seed-'));
  });
  afterAll(async () => rm(parent, { recursive: true, force: true }));

  it('is a copy with every migration applied, and the template is made once', async () => {
    const first = join(parent, 'a', 'db');
    expect(await seedFromTemplate(first)).toBe(true);
    expect(existsSync(join(first, 'PG_VERSION'))).toBe(true);
    const cache = process.env[CACHE_DIR_ENV] as string;
    // This version's template, found by its key: another test file may run an installed copy of the
    // package (another key) and build its own template beside it at this moment.
    const template = join(cache, `pglite-template-${await templateKey()}`);
    expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
    const made = (await stat(template)).ino;

    const db = await openDb(`pglite:${first}`);
    try {
      expect((await migrate(db)).applied).toEqual([]);
      const current = await sql<{ v: number }>`SELECT max(version)::int AS v FROM efa.schema_migrations`.execute(db.kysely);
      expect(current.rows[0]?.v).toBe((await readMigrations()).at(-1)?.version);
      const point = await sql<{ t: string }>`SELECT ST_AsText(ST_Transform(ST_SetSRID(ST_MakePoint(9.18, 48.78), 4326), 25832)) AS t`.execute(db.kysely);
      expect(point.rows[0]?.t).toMatch(/^POINT\(513\d{3}\.\d+ 5403\d{3}\.\d+\)$/);
    } finally {
      await db.close();
    }

    // An empty directory is new too; the template is reused, not made again.
    const second = join(parent, 'b');
    await mkdir(second);
    expect(await seedFromTemplate(second)).toBe(true);
    expect((await stat(template)).ino).toBe(made);
    // Nothing is left beside the databases.
    expect((await readdir(parent)).sort()).toEqual(['a', 'b']);
  }, 600_000);

  it('removes the templates of other versions once unused for a week, and keeps a recent one', async () => {
    const cache = process.env[CACHE_DIR_ENV] as string;
    const stale = join(cache, 'pglite-template-0000000000000000dead');
    const recent = join(cache, 'pglite-template-0000000000000000beef');
    for (const dir of [stale, recent]) await mkdir(dir, { recursive: true });
    // Both ages from the process's clock (the one the pruning reads), not one from the file system's.
    const now = new Date();
    const eightDaysAgo = new Date(now.getTime() - 8 * 24 * 3600 * 1000);
    await utimes(stale, eightDaysAgo, eightDaysAgo);
    await utimes(recent, now, now);
    expect(await seedFromTemplate(join(parent, 'pruned'))).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(join(cache, `pglite-template-${await templateKey()}`))).toBe(true);
    await rm(recent, { recursive: true });
  });

  it('never writes into a new directory that another live process holds', async () => {
    const held = join(parent, 'held');
    await mkdir(held);
    // The parent of this test process is alive on this host: its lock stands.
    await writeFile(`${held}.efa-sync.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), since: new Date().toISOString(), command: 'serve' }));
    await expect(openDb(`pglite:${held}`)).rejects.toThrow(/is in use by serve/);
    expect(await readdir(held)).toEqual([]);
    await rm(`${held}.efa-sync.lock`);
  });

  it('leaves a directory that holds anything, and is switched off by EFA_SYNC_PGLITE_TEMPLATE=0', async () => {
    const used = join(parent, 'used');
    await mkdir(used);
    await writeFile(join(used, 'notes.txt'), 'mine');
    expect(await seedFromTemplate(used)).toBe(false);
    expect(await readdir(used)).toEqual(['notes.txt']);
    const off = join(parent, 'off');
    expect(await seedFromTemplate(off, { ...process.env, [TEMPLATE_ENV]: '0' })).toBe(false);
    expect(existsSync(off)).toBe(false);
  });
});
