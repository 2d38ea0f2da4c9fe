import { mkdir, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kysely, PGliteDialect } from 'kysely';
import { pgOid, type Db, type OpenDbOptions } from './connect.js';
import { lockDataDir } from './lock.js';
import { pgliteEngine } from './pglite-engine.js';
import type { Database } from './tables.js';

/** The embedded database: PGlite with PostGIS in a directory (or in memory), one process at a time. */
type PGliteInstance = import('@electric-sql/pglite').PGlite;

/**
 * `prepareNew`: called with the data directory once its lock is held and before PGlite opens it, to
 * make a new database something other than initdb's (open.ts: a copy of the migrated template).
 */
export async function openPglite(location: string, options: OpenDbOptions = {}, prepareNew?: (dataDir: string) => Promise<unknown>): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  const memory = location === 'memory' || location === 'memory:' || location === '';
  const given = memory ? undefined : resolve(location);
  if (given) await mkdir(given, { recursive: true });
  // The lock file sits beside the real directory: a second process opening it through a symlink
  // (or a path with one in it) must meet the same lock, not a file of its own (exit 4, not a clash).
  const dataDir = given === undefined ? undefined : await realpath(given);
  const dirLock = dataDir ? await lockDataDir(dataDir) : undefined;
  if (dataDir !== undefined && prepareNew !== undefined) {
    await prepareNew(dataDir).catch(async (e: unknown) => {
      await dirLock?.release();
      throw e;
    });
  }
  // After prepareNew: a first new database on a machine builds the template on a thread of its own,
  // which derives the cached PostGIS bundle there; this thread then reads the cached one and never
  // holds the garbage of deriving it beside the template's build (loaded before it, the first
  // `efa-sync migrate` of an empty cache peaked at 1.15-1.17 GB; after it, 848-868 MB).
  const engine = await pgliteEngine(options.geometry !== false);
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...engine,
    parsers: { [pgOid.int8]: (v: string) => v, [pgOid.date]: (v: string) => v },
  });
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  // PGlite is one connection, one session.
  const pgliteSession = new Set<string>();
  return {
    kysely,
    kind: 'pglite',
    embedded: pglite,
    displayUrl: memory ? 'pglite:memory' : `pglite:${dataDir}`,
    exec: async (script) => {
      try {
        await pglite.exec(script);
      } catch (e) {
        if (pglite.isInTransaction?.()) await pglite.exec('ROLLBACK');
        throw e;
      }
    },
    lockJob: async (job) => {
      await dirLock?.update({ job });
      // The data directory is this process's until it exits: a PGlite lock cannot be lost.
      return { holds: async (runId) => dirLock?.update({ runId }), lost: new AbortController().signal, release: async () => undefined };
    },
    // PGlite is one connection, locked by its exclusive transaction; queries of the transaction must
    // go through its `tx` (the instance itself would wait for the lock). A Kysely over that `tx`
    // builds them, and COPY FROM '/dev/blob' (whose `blob` option does not pass through Kysely) uses it too.
    transaction: (fn, o = {}) =>
      pglite
        .transaction(async (tx) => {
          const onTx = { closed: false, ready: true, query: tx.query.bind(tx), close: async () => undefined } as unknown as PGliteInstance;
          const opened = o.opening === undefined ? [] : (((await tx.exec(o.opening))[0]?.rows ?? []) as Record<string, unknown>[]);
          return fn({
            opened,
            session: pgliteSession,
            kysely: new Kysely<Database>({ dialect: new PGliteDialect({ pglite: onTx }) }),
            copyIn: async (table, columns, text) => {
              await tx.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([...text]) });
            },
            copyOut: async (query) => (await (await tx.query(`COPY (${query}) TO '/dev/blob'`)).blob?.text()) ?? '',
          });
        })
        .catch((e: unknown) => {
          // What the transaction created for the session is rolled back with it.
          pgliteSession.clear();
          throw e;
        }),
    // In-process: a stopping process takes its statements with it.
    stop: async () => undefined,
    // The instance's own queue: after the transaction in progress, if any, has ended.
    lastWord: (fn) => fn(kysely),
    close: async () => {
      await kysely.destroy();
      if (!pglite.closed) await pglite.close();
      await dirLock?.release();
    },
  };
}
