import { createRequire } from 'node:module';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Extension } from '@electric-sql/pglite';
import { pgliteCacheDir } from './pglite-cache.js';

/*
 * PostGIS for PGlite, without what efa-sync never loads, put in place without PGlite's bundle path.
 * The @electric-sql/pglite-postgis bundle (90 MB unpacked) also carries postgis_raster-3.so and
 * postgis_topology-3.so (31 of its 48 MB of WebAssembly), the tiger geocoder, address_standardizer and
 * the contrib scripts. PGlite copies every file of a bundle into its in-memory file system and
 * compiles every .so in it at each start, used or not. efa-sync creates `postgis` alone (sql/001), so
 * the lean bundle keeps postgis-3.so, its extension scripts (install and upgrade paths) and PROJ's
 * data (ST_Transform). It is derived once from the installed bundle into the cache, as a plain tar.
 *
 * PGlite's own path for a bundle gunzips it through a stream into a Blob of 16 kB parts, reads that
 * back whole and untars it in JavaScript: 0.5 s of every start on a 2-core machine (the lean bundle
 * is 42 MB), measured with --cpu-prof. Here the cached tar is read in one call and its files are
 * written into PGlite's file system before PostgreSQL starts, postgis-3.so through Emscripten's
 * preloading (the way PGlite loads it too: compiled and linked before anything can dlopen it).
 * Opening an existing database with PostGIS: 2.2 -> 1.4 s, peak RSS 620 -> 480 MB.
 */

/** Bumped when the selection below or the cached form changes (2: an uncompressed tar). */
const LEAN_SELECTION_VERSION = 2;
const LEAN_PREFIX = 'postgis-lean-';

/** Entries of the bundle that efa-sync's `CREATE EXTENSION postgis` never reads. */
export function unusedByEfaSync(name: string): boolean {
  return (
    /^lib\/postgresql\/postgis_(raster|topology)-\d+\.so$/.test(name) ||
    name.startsWith('share/postgresql/contrib/') ||
    /^share\/postgresql\/extension\/(postgis_raster|postgis_topology|postgis_tiger_geocoder|postgis_sfcgal|address_standardizer)/.test(name) ||
    // Turns a pre-extension (PostGIS 1.x) install into an extension: never an embedded database's case.
    /^share\/postgresql\/extension\/postgis--unpackaged--/.test(name)
  );
}

const BLOCK = 512;

/** One entry of a tar archive: its name (long names resolved), type, contents, and its whole bytes. */
export interface TarEntry {
  readonly name: string;
  /** The ustar type flag: '0' or '' a file, '5' a directory, … */
  readonly type: string;
  readonly data: Buffer;
  /** The entry's blocks, a GNU `L` or pax `x` entry naming it included. */
  readonly bytes: readonly Buffer[];
}

/** The entry's size and name from a ustar header block (name prefix included). */
function header(block: Buffer): { name: string; size: number; type: string } {
  const text = (from: number, length: number): string => {
    const raw = block.subarray(from, from + length);
    const end = raw.indexOf(0);
    return raw.subarray(0, end < 0 ? length : end).toString('utf8');
  };
  const prefix = text(345, 155);
  const name = text(0, 100);
  return { name: prefix ? `${prefix}/${name}` : name, size: parseInt(text(124, 12).trim() || '0', 8), type: text(156, 1) };
}

/** The entries of a tar archive, in order, as views on `tar` (nothing is copied). */
export function tarEntries(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let pending: Buffer[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const block = tar.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) break;
    const { name, size, type } = header(block);
    const end = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const entry = tar.subarray(at, end);
    const data = tar.subarray(at + BLOCK, at + BLOCK + size);
    at = end;
    if (type === 'L' || type === 'x') {
      const text = data.toString('utf8');
      longName = type === 'L' ? text.replace(/\0.*$/s, '') : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(text)?.[1] ?? longName);
      pending.push(entry);
      continue;
    }
    entries.push({ name: longName ?? name, type, data, bytes: [...pending, entry] });
    pending = [];
    longName = undefined;
  }
  return entries;
}

/** The tar archive without the entries `drop` names, byte for byte otherwise. */
export function filterTar(tar: Buffer, drop: (name: string) => boolean): Buffer {
  const kept = tarEntries(tar).filter((e) => !drop(e.name)).flatMap((e) => e.bytes);
  return Buffer.concat([...kept, Buffer.alloc(2 * BLOCK)]);
}

/** The lean bundle in the cache (derived on first use from the installed one), or undefined without a cache. */
async function leanBundle(): Promise<string | undefined> {
  const require = createRequire(import.meta.url);
  const full = join(dirname(require.resolve('@electric-sql/pglite-postgis')), 'postgis.tar.gz');
  const source = await stat(full);
  const cache = await pgliteCacheDir();
  if (cache === undefined) return undefined;
  // The installed bundle's size and time name it: another version of pglite-postgis gets its own.
  const name = `${LEAN_PREFIX}v${LEAN_SELECTION_VERSION}-${source.size}-${Math.round(source.mtimeMs)}.tar`;
  const lean = join(cache, name);
  if (await stat(lean).then((s) => s.size > 0, () => false)) return lean;
  const filtered = filterTar(gunzipSync(await readFile(full)), unusedByEfaSync);
  // Written aside and renamed: a concurrent first start never reads half a file.
  const partial = `${lean}.${process.pid}.partial`;
  try {
    await writeFile(partial, filtered);
    await rename(partial, lean);
  } finally {
    await rm(partial, { force: true });
  }
  // Bundles of other selections or versions (a process still reading one keeps its open file).
  for (const other of await readdir(cache).catch(() => [])) {
    if (other.startsWith(LEAN_PREFIX) && other !== name && !other.endsWith('.partial')) await rm(join(cache, other), { force: true });
  }
  return lean;
}

/** What of Emscripten's module the files are written through (PGlite 0.5's build). */
export interface EmscriptenFs {
  readonly WASM_PREFIX?: string;
  readonly FS: {
    analyzePath(path: string): { exists: boolean };
    mkdirTree(path: string): void;
    writeFile(path: string, data: Uint8Array): void;
  };
  readonly FS_createPreloadedFile?: (parent: string, name: string, data: Uint8Array, canRead: boolean, canWrite: boolean,
    onload: () => void, onerror: () => void, dontCreateFile: boolean) => void;
}

/**
 * Writes the bundle's files where PGlite's own loader puts them (under WASM_PREFIX); a shared
 * library is preloaded (compiled and linked before PostgreSQL starts, its file written too), and
 * where it cannot be, written as a file for dlopen to load when first called.
 */
export function writeBundle(mod: EmscriptenFs, entries: readonly TarEntry[]): void {
  const prefix = mod.WASM_PREFIX ?? '/pglite';
  for (const entry of entries) {
    if (entry.type !== '0' && entry.type !== '') continue;
    const path = `${prefix}/${entry.name}`;
    const dir = path.slice(0, path.lastIndexOf('/'));
    if (!mod.FS.analyzePath(dir).exists) mod.FS.mkdirTree(dir);
    const preload = mod.FS_createPreloadedFile;
    if (entry.name.endsWith('.so') && preload !== undefined) {
      preload(dir, path.slice(dir.length + 1), entry.data, true, true, () => undefined, () => mod.FS.writeFile(path, entry.data), false);
    } else {
      mod.FS.writeFile(path, entry.data);
    }
  }
}

/**
 * The `postgis` extension for PGlite.create: the lean bundle written in before PostgreSQL starts
 * when the cache can hold it, else the installed bundle through PGlite's own path (slower, same
 * behaviour).
 */
export async function postgisForPglite(): Promise<Extension> {
  const lean = await leanBundle().catch(() => undefined);
  const { postgis } = await import('@electric-sql/pglite-postgis');
  const entries = lean === undefined ? undefined : await readFile(lean).then(tarEntries, () => undefined);
  if (entries === undefined) return postgis;
  return {
    name: 'postgis',
    setup: async (pg, emscriptenOpts) => {
      // The installed extension's settings (PROJ's data directory, …), without its bundle path.
      const { bundlePath: _unused, ...base } = await postgis.setup(pg, emscriptenOpts);
      const opts = (base.emscriptenOpts ?? emscriptenOpts) as { preRun?: unknown };
      const preRun = Array.isArray(opts.preRun) ? opts.preRun : opts.preRun === undefined ? [] : [opts.preRun];
      return { ...base, emscriptenOpts: { ...opts, preRun: [...preRun, (mod: EmscriptenFs) => writeBundle(mod, entries)] } };
    },
  };
}
