import { createRequire } from 'node:module';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Extension } from '@electric-sql/pglite';
import { pgliteCacheDir } from './pglite-cache.js';

/*
 * PostGIS for PGlite, without what efa-sync never loads. The @electric-sql/pglite-postgis bundle
 * (90 MB unpacked) also carries postgis_raster-3.so and postgis_topology-3.so (31 of its 48 MB of
 * WebAssembly), the tiger geocoder, address_standardizer and the contrib scripts. PGlite copies every
 * file of a bundle into its in-memory file system and compiles every .so in it at each start, used or
 * not: the unused two were most of the start's time and memory. efa-sync creates `postgis` alone
 * (sql/001), so the lean bundle keeps postgis-3.so, its extension scripts (install and upgrade paths)
 * and PROJ's data (ST_Transform), and is derived once from the installed bundle into the cache.
 */

/** Bumped when the selection below changes, so a cached bundle of an older selection is not used. */
const LEAN_SELECTION_VERSION = 1;

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

/**
 * The tar archive without the entries `drop` names, byte for byte otherwise. A long name's own entry
 * (GNU `L`, pax `x`) stays with the entry it names.
 */
export function filterTar(tar: Buffer, drop: (name: string) => boolean): Buffer {
  const kept: Buffer[] = [];
  let pending: Buffer[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const block = tar.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) break;
    const { name, size, type } = header(block);
    const end = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const entry = tar.subarray(at, end);
    at = end;
    if (type === 'L' || type === 'x') {
      const data = entry.subarray(BLOCK, BLOCK + size).toString('utf8');
      longName = type === 'L' ? data.replace(/\0.*$/s, '') : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(data)?.[1] ?? longName);
      pending.push(entry);
      continue;
    }
    if (!drop(longName ?? name)) kept.push(...pending, entry);
    pending = [];
    longName = undefined;
  }
  return Buffer.concat([...kept, Buffer.alloc(2 * BLOCK)]);
}

/** The installed bundle, and the lean one derived from it in the cache (built on first use). */
async function leanBundle(): Promise<string | undefined> {
  const require = createRequire(import.meta.url);
  const full = join(dirname(require.resolve('@electric-sql/pglite-postgis')), 'postgis.tar.gz');
  const source = await stat(full);
  const cache = await pgliteCacheDir();
  if (cache === undefined) return undefined;
  // The installed bundle's size and time name it: another version of pglite-postgis gets its own.
  const lean = join(cache, `postgis-lean-v${LEAN_SELECTION_VERSION}-${source.size}-${Math.round(source.mtimeMs)}.tar.gz`);
  if (await stat(lean).then((s) => s.size > 0, () => false)) return lean;
  const filtered = filterTar(gunzipSync(await readFile(full)), unusedByEfaSync);
  // Written aside and renamed: a concurrent first start never reads half a file.
  const partial = `${lean}.${process.pid}.partial`;
  try {
    await writeFile(partial, gzipSync(filtered, { level: 1 }));
    await rename(partial, lean);
  } finally {
    await rm(partial, { force: true });
  }
  return lean;
}

/**
 * The `postgis` extension for PGlite.create: the lean bundle when the cache can hold it, else the
 * installed bundle as it is (slower, same behaviour).
 */
export async function postgisForPglite(): Promise<Extension> {
  const lean = await leanBundle().catch(() => undefined);
  const { postgis } = await import('@electric-sql/pglite-postgis');
  if (lean === undefined) return postgis;
  return {
    name: 'postgis',
    setup: async (pg, emscriptenOpts) => {
      // The installed extension's settings (PROJ's data directory, …), with the lean bundle instead.
      const base = await postgis.setup(pg, emscriptenOpts);
      return { ...base, bundlePath: pathToFileURL(lean) };
    },
  };
}
