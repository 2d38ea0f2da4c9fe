import { sql } from 'kysely';
import type { Db } from './connect.js';

/** The materialized analyst views of sql/003, in refresh order (none reads another). */
export const materializedViews = ['efa.stop_summary', 'efa.tile_coverage'] as const;

async function isPopulated(db: Db, view: string): Promise<boolean> {
  const r = await sql<{ populated: boolean }>`SELECT relispopulated AS populated FROM pg_class WHERE oid = ${view}::regclass`.execute(db.kysely);
  return r.rows[0]?.populated === true;
}

/**
 * Refreshes the materialized analyst views (call at the end of a run). On a PostgreSQL server a
 * populated view is refreshed CONCURRENTLY (readers are not blocked; each view has a unique
 * index); on PGlite, a single connection, a plain REFRESH is as good and cheaper.
 */
export async function refreshAnalystViews(db: Db): Promise<void> {
  for (const view of materializedViews) {
    const concurrently = db.kind === 'postgres' && (await isPopulated(db, view));
    await sql.raw(`REFRESH MATERIALIZED VIEW ${concurrently ? 'CONCURRENTLY ' : ''}${view}`).execute(db.kysely);
  }
}
