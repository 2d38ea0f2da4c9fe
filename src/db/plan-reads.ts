import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { BBox } from '../tiling/types.js';
import { PointList } from '../util/point-list.js';
import type { RunRef } from './merge.js';
import type { Database } from './tables.js';
import type { UnitStatus } from './unit-status.js';

/**
 * The reads that plan a night's work from the ledger and the warehouse: the CoordInfo tiles a run
 * still has to fetch (and all it recorded, for a resumed pilot), where the pilot's pins of a type
 * are, and which stops' lines are due. The ledger itself (what a run did and its counts) is
 * ledger.ts; these only decide what comes next, so `plan` and the sweep ask the same questions.
 */

/** CoordInfo tiles planned in a run and not yet fetched (or failed: a resume tries them again). */
export async function pendingTiles(
  db: Kysely<Database>,
  runId: string,
): Promise<{ id: string; parentId?: string; depth: number; bbox: [number, number, number, number]; known?: number; types?: string[] }[]> {
  const rows = await sql<{
    tile_id: string; parent_id: string | null; depth: number; hits: number; status: string; types: string[] | null; x0: number; y0: number; x1: number; y1: number;
  }>`
    SELECT tile_id, parent_id, depth, hits, status, types, ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = 'coordInfo' AND status IN ('pending', 'failed')
    ORDER BY run_tile_id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.tile_id,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    depth: r.depth,
    bbox: [r.x0, r.y0, r.x1, r.y1],
    ...(r.status === 'pending' && r.hits > 0 ? { known: r.hits } : {}),
    ...(r.types !== null ? { types: r.types } : {}),
  }));
}

/** Every CoordInfo tile of a run as recorded, in the order recorded (a resumed pilot reads its strata and blocks here). */
export async function coordTileRows(
  db: Kysely<Database>,
  runId: string,
): Promise<{ id: string; parentId?: string; depth: number; status: UnitStatus; attempts: number; subject: string | null; types?: string[]; bbox: [number, number, number, number] }[]> {
  const rows = await sql<{
    tile_id: string; parent_id: string | null; depth: number; status: UnitStatus; attempts: number; subject: string | null; types: string[] | null; x0: number; y0: number; x1: number; y1: number;
  }>`
    SELECT tile_id, parent_id, depth, status, attempts, subject, types, ST_XMin(bbox) AS x0, ST_YMin(bbox) AS y0, ST_XMax(bbox) AS x1, ST_YMax(bbox) AS y1
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = 'coordInfo' ORDER BY run_tile_id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.tile_id,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    depth: r.depth,
    status: r.status,
    attempts: r.attempts,
    subject: r.subject,
    ...(r.types !== null ? { types: r.types } : {}),
    bbox: [r.x0, r.y0, r.x1, r.y1],
  }));
}

/**
 * The last of the next `sets` pin seen sets of a run after `after` (keyset on set_id), or undefined
 * when none is left: a page of a run's keys is read set by set, so each page reads only its own.
 */
async function lastSeenSetOfPage(db: Kysely<Database>, runId: string, after: string, sets: number): Promise<string | undefined> {
  const r = await sql<{ set_id: string }>`
    SELECT set_id::text AS set_id FROM efa.run_seen_sets
    WHERE run_id = ${runId}::bigint AND relation = 'pins' AND set_id > ${after}::bigint
    ORDER BY set_id LIMIT ${sets}`.execute(db);
  return r.rows.at(-1)?.set_id;
}

/**
 * Positions (lon,lat pairs) of the live pins of one type a run saw: the pilot's pins of a night. Read
 * a page of the run's seen sets at a time (keyset on set_id, as `dueStopsPage`), each key found
 * through the (source, pin_key) index: linear in the run's keys whatever the planner guesses about
 * the arrays. `p.pin_key IN (SELECT … run_seen_keys …)` was planned as a loop over every seen set per
 * pin (9 minutes and still going at a million pins, issue 17's quadratic statement again). A key in
 * two sets of one page counts once; one in two pages (a tile answered again after a resume) twice,
 * which only weighs that spot a little more in the plan.
 */
export async function runPinPoints(db: Kysely<Database>, run: RunRef, type: string): Promise<Float64Array> {
  const out = new PointList();
  let after = '0';
  for (;;) {
    const last = await lastSeenSetOfPage(db, run.runId, after, 100);
    if (last === undefined) break;
    // LATERAL … LIMIT 1: one probe of the (source, pin_key) index per key, as keysToMerge. A join let
    // the planner, reading the statistics of a pins table analysed while it was still empty, loop over
    // every pilot pin per key (15 s for one page of 200,000 keys).
    const page = await sql<{ lon: number; lat: number }>`
      SELECT ST_X(p.geom) AS lon, ST_Y(p.geom) AS lat
      FROM (SELECT DISTINCT k.key FROM efa.run_seen_sets s CROSS JOIN LATERAL unnest(s.keys) AS k(key)
            WHERE s.run_id = ${run.runId}::bigint AND s.relation = 'pins' AND s.set_id > ${after}::bigint AND s.set_id <= ${last}::bigint) u
      CROSS JOIN LATERAL (
        SELECT x.geom, x.type, x.deleted_at FROM efa.pins x WHERE x.source = ${run.source} AND x.pin_key = u.key LIMIT 1
      ) p
      WHERE p.type = ${type} AND p.deleted_at IS NULL`.execute(db);
    for (const r of page.rows) out.push(Number(r.lon), Number(r.lat));
    after = last;
  }
  return out.points();
}

/** How many pins of these types a run saw in a box (resume only): one INTERSECT, linear as sql/010's predicates. */
export async function runPinCount(db: Kysely<Database>, run: RunRef, types: readonly string[], bbox: BBox): Promise<number> {
  const [x0, y0, x1, y1] = bbox;
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM (
      SELECT p.pin_key FROM efa.pins p
      WHERE p.source = ${run.source} AND p.type = ANY (${[...types]}::text[])
        AND p.geom && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326)
      INTERSECT
      SELECT s.key FROM efa.run_seen_keys(${run.runId}::bigint, 'pins') AS s
    ) u`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/**
 * Whether a stop's lines are due on a night: its lines were never fetched for this source, or it
 * falls in the night's rolling share `hash(stop) mod N = night mod N`, so every stop is refreshed
 * within N nights. One definition for the sweep and for `plan`.
 */
function stopLinesDue(stopId: RawBuilder<unknown>, source: string, q: { all: boolean; everyNights: number; night: number }): RawBuilder<unknown> {
  return sql`(${q.all}::boolean
    OR NOT EXISTS (SELECT 1 FROM efa.run_tiles t JOIN efa.runs r ON r.run_id = t.run_id
                   WHERE t.operation = 'servingLines' AND t.subject = ${stopId} AND t.status = 'done' AND r.source = ${source})
    OR mod(hashtext(${stopId})::bigint + 2147483648, ${q.everyNights}::bigint) = ${q.night % q.everyNights}::bigint)`;
}

/**
 * Stops of this run's source that it has seen and whose lines are due, a page at a time (a
 * million-pin region is never held in memory): stops new or changed in this run, and those
 * stopLinesDue names. Paged by the run's seen sets (keyset on set_id), so each page reads only its
 * own sets' keys: paging the run's stops by id instead unnested every seen set once per page, a
 * page count times the run's keys (hours at a million pins). A stop this run already fetched (a key
 * in two sets, a resumed run) is not due again.
 */
export async function dueStopsPage(
  db: Kysely<Database>,
  run: RunRef,
  q: { all: boolean; everyNights: number; night: number; afterSet: string; sets: number },
): Promise<{ stops: string[]; lastSet: string | undefined }> {
  const lastSet = await lastSeenSetOfPage(db, run.runId, q.afterSet, q.sets);
  if (lastSet === undefined) return { stops: [], lastSet };
  const page = await sql<{ id: string }>`
    SELECT DISTINCT p.id
    FROM efa.run_seen_sets s
    CROSS JOIN LATERAL unnest(s.keys) AS k(key)
    JOIN efa.pins p ON p.source = ${run.source} AND p.pin_key = k.key
    WHERE s.run_id = ${run.runId}::bigint AND s.relation = 'pins' AND s.set_id > ${q.afterSet}::bigint AND s.set_id <= ${lastSet}::bigint
      AND p.type = 'STOP' AND p.id IS NOT NULL
      AND (p.changed_run = ${run.runId}::bigint OR ${stopLinesDue(sql.ref('p.id'), run.source, q)})
      AND NOT EXISTS (SELECT 1 FROM efa.run_tiles t WHERE t.run_id = ${run.runId}::bigint AND t.operation = 'servingLines'
                        AND t.subject = p.id AND t.status IN ('done', 'incomplete', 'capped'))
    ORDER BY p.id`.execute(db);
  return { stops: page.rows.map((r) => r.id), lastSet };
}

/** Live stops of a source in a box, and how many of them stopLinesDue names: what `plan` budgets. */
export async function countDueStops(
  db: Kysely<Database>,
  source: string,
  bbox: BBox,
  q: { all: boolean; everyNights: number; night: number },
): Promise<{ known: number; due: number }> {
  const [x0, y0, x1, y1] = bbox;
  const r = await sql<{ known: number; due: number }>`
    SELECT count(*)::int AS known, count(*) FILTER (WHERE ${stopLinesDue(sql.ref('p.id'), source, q)})::int AS due
    FROM efa.pins p
    WHERE p.source = ${source} AND p.type = 'STOP' AND p.id IS NOT NULL AND p.deleted_at IS NULL
      AND p.geom && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326)`.execute(db);
  return { known: r.rows[0]?.known ?? 0, due: r.rows[0]?.due ?? 0 };
}
