import { sql } from 'kysely';
import type { Db } from './connect.js';

/** The materialized analyst views of sql/003, in refresh order (none reads another). */
export const materializedViews = ['efa.stop_summary', 'efa.tile_coverage'] as const;
type MaterializedView = (typeof materializedViews)[number];

/**
 * What a view's rows depend on beyond the relations' change sets. efa.tile_coverage shows the
 * latest run's tiles, which every run writes without a change set: it is refreshed every time (a
 * few thousand tiles). efa.stop_summary reads only relations whose every change is a change set,
 * and the date (efa.active_notices): skipped when neither moved (sql/015_view_refresh_marks.sql).
 */
const followsChangeSets: ReadonlySet<MaterializedView> = new Set<MaterializedView>(['efa.stop_summary']);

async function isPopulated(db: Db, view: string): Promise<boolean> {
  const r = await sql<{ populated: boolean }>`SELECT relispopulated AS populated FROM pg_class WHERE oid = ${view}::regclass`.execute(db.kysely);
  return r.rows[0]?.populated === true;
}

/**
 * An empty view (a first night) is refreshed plainly even on a server: CONCURRENTLY would compute
 * the rows, diff them against nothing and insert them one by one through the unique index (0.71 s
 * against 0.12 s for 32,000 stops on PostgreSQL 15), while a reader blocked by the plain refresh would only have
 * seen no rows.
 */
async function isEmpty(db: Db, view: string): Promise<boolean> {
  const r = await sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM ${sql.raw(view)}) AS empty`.execute(db.kysely);
  return r.rows[0]?.empty === true;
}

interface RefreshMark {
  readonly changeSetId: string;
  readonly today: string;
}

/** The newest change set and today's date, read just before a refresh begins. */
async function currentMark(db: Db): Promise<RefreshMark> {
  const r = await sql<{ id: string; today: string }>`
    SELECT coalesce(max(set_id), 0)::text AS id, current_date::text AS today FROM efa.change_sets`.execute(db.kysely);
  const row = r.rows[0];
  return { changeSetId: row?.id ?? '0', today: row?.today ?? '' };
}

async function storedMark(db: Db, view: string): Promise<RefreshMark | undefined> {
  const r = await sql<{ id: string; today: string }>`
    SELECT change_set_id::text AS id, refreshed_on::text AS today FROM efa_private.view_refreshes WHERE view_name = ${view}`.execute(db.kysely);
  const row = r.rows[0];
  return row ? { changeSetId: row.id, today: row.today } : undefined;
}

async function storeMark(db: Db, view: string, mark: RefreshMark): Promise<void> {
  await sql`
    INSERT INTO efa_private.view_refreshes (view_name, change_set_id, refreshed_on, refreshed_at)
    VALUES (${view}, ${mark.changeSetId}::bigint, ${mark.today}::date, now())
    ON CONFLICT (view_name) DO UPDATE SET change_set_id = excluded.change_set_id, refreshed_on = excluded.refreshed_on, refreshed_at = excluded.refreshed_at`.execute(db.kysely);
}

export interface RefreshOptions {
  /**
   * Whether the run refreshing wrote change sets itself. It always refreshes then: a change set of
   * its own, numbered below a mark another job stored while this run's transaction was still open,
   * would otherwise look already refreshed.
   */
  readonly runChanged: boolean;
}

/**
 * Refreshes the materialized analyst views (call at the end of a run) that may have changed: a view
 * that follows the change sets is skipped when no change set is newer than its last refresh, the
 * date is the same and this run changed nothing, since it would give the same rows. On a PostgreSQL
 * server a view with rows is refreshed CONCURRENTLY (readers are not blocked; each view has a
 * unique index); on PGlite, a single connection, a plain REFRESH is as good and cheaper.
 * Returns the views refreshed.
 */
export async function refreshAnalystViews(db: Db, opts: RefreshOptions = { runChanged: true }): Promise<MaterializedView[]> {
  const refreshed: MaterializedView[] = [];
  for (const view of materializedViews) {
    const populated = await isPopulated(db, view);
    const mark = followsChangeSets.has(view) ? await currentMark(db) : undefined;
    if (mark && populated && !opts.runChanged) {
      const last = await storedMark(db, view);
      if (last && last.changeSetId === mark.changeSetId && last.today === mark.today) continue;
    }
    const concurrently = db.kind === 'postgres' && populated && !(await isEmpty(db, view));
    await sql.raw(`REFRESH MATERIALIZED VIEW ${concurrently ? 'CONCURRENTLY ' : ''}${view}`).execute(db.kysely);
    if (mark) await storeMark(db, view, mark);
    refreshed.push(view);
  }
  return refreshed;
}
