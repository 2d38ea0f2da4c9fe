import { createWriteStream, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { dbUrlChoice, openDb, redactUrl } from '../db/index.js';
import { ConfigError } from '../errors.js';
import { addCommonOptions, loggerFor, type CommonOptions } from './common.js';

interface DbDumpOptions extends CommonOptions {
  out: string;
  schemaOnly?: boolean;
}

/**
 * The schemas a dump holds: the warehouse's. Not `public`, where PostGIS lives: the target creates
 * the extension itself (CREATE EXTENSION postgis), and pg_dump in PGlite did not finish dumping
 * PostGIS's spatial_ref_sys in minutes (docs/operations/database.md, the figures).
 */
export const DUMP_SCHEMAS = ['efa', 'efa_partitions', 'efa_private'] as const;

/**
 * The embedded database `db copy` and `db dump` read: `--db` (else $DATABASE_URL, else the default),
 * which must name a PGlite directory that holds a database; opening any other would create an empty
 * warehouse and copy or dump nothing.
 */
export function embeddedSource(option: string | undefined, command: string): string {
  const from = dbUrlChoice(option);
  const field = from.from === '--db' ? 'db' : from.from;
  if (!from.url.startsWith('pglite:')) {
    throw new ConfigError(`${from.from}: ${command} reads an embedded database (pglite:<dir>), got ${redactUrl(from.url)}; give --db pglite:<dir> (from a PostgreSQL server: its own pg_dump and pg_restore)`, field);
  }
  const dir = from.url.slice('pglite:'.length);
  if (!existsSync(join(resolve(dir === '' ? '.' : dir), 'PG_VERSION'))) throw new ConfigError(`${from.from}: ${from.url} holds no embedded database: nothing to ${command.replace('db ', '')}`, field);
  return from.url;
}

/**
 * `efa-sync db dump --out file.sql`: pg_dump of the embedded warehouse, run inside the process by
 * PGlite's own WebAssembly build of it (@electric-sql/pglite-tools), since a pg_dump of the machine
 * refuses PGlite's PostgreSQL 18 when it is older. Plain SQL with INSERTs (that build's only form),
 * without owners, for `psql -f` into a database with PostGIS. `db copy` is the faster way to a server.
 */
export function registerDbDump(db: Command): void {
  const cmd = db
    .command('dump')
    .description('pg_dump of the embedded warehouse (schemas efa, efa_partitions, efa_private) as SQL for psql -f, by PGlite\'s pg_dump')
    .requiredOption('--out <file>', 'where the SQL goes (- for stdout)')
    .option('--schema-only', 'the definitions without the rows');
  addCommonOptions(cmd, ['db', 'log'], { db: 'the embedded database to dump: pglite:<dir> (default $DATABASE_URL, else pglite:./.efa-sync/db)' }).action(async (opts: DbDumpOptions) => {
    const log = loggerFor(opts);
    const url = embeddedSource(opts.db, 'db dump');
    const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
    const source = await openDb(url);
    try {
      const pg = source.embedded;
      if (pg === undefined) throw new Error(`${source.displayUrl} has no embedded instance to dump`);
      const started = Date.now();
      const args = [...DUMP_SCHEMAS.flatMap((s) => ['-n', s]), '--no-owner', ...(opts.schemaOnly === true ? ['--schema-only'] : [])];
      const dump = await pgDump({ pg, args });
      const out: Writable = opts.out === '-' ? process.stdout : createWriteStream(opts.out);
      await pipeline(Readable.fromWeb(dump.stream() as WebReadableStream<Uint8Array>), out, { end: opts.out !== '-' });
      log.info(`dumped ${source.displayUrl} (${opts.schemaOnly === true ? 'schema' : 'schema and rows'}, ${dump.size.toLocaleString('en-US')} bytes) to ${opts.out === '-' ? 'stdout' : opts.out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await source.close();
    }
  });
}
