import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { HISTORY_RELATIONS, type HistoryRelation } from '../../src/history/index.js';
import type { Comparable } from '../helpers/compare.js';

const goneColumn = (r: HistoryRelation): string => (r === 'notices' ? 'ended_at' : 'deleted_at');

/** Sorted JSON texts of objects, keys sorted: two lists compare equal exactly when every row and column does. */
function canonical(rows: readonly Record<string, unknown>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1))))).sort();
}

/**
 * The live rows of every history relation now, as JSON: every column but the gone marker, which is
 * what the as-of functions return (a column added to a table and not to its functions shows here).
 */
export async function liveRows(db: Db): Promise<Record<HistoryRelation, string[]>> {
  const out = {} as Record<HistoryRelation, string[]>;
  for (const r of HISTORY_RELATIONS) {
    const rows = await sql<{ j: Record<string, unknown> }>`
      SELECT to_jsonb(x) - ${goneColumn(r)}::text AS j FROM ${sql.table(`efa.${r}`)} x WHERE ${sql.ref(`x.${goneColumn(r)}`)} IS NULL`.execute(db.kysely);
    out[r] = canonical(rows.rows.map((x) => x.j));
  }
  return out;
}

/** efa.<relation>_as_of(at) of every history relation, as JSON, without the version times. */
export async function asOfRows(db: Db, at: Date): Promise<Record<HistoryRelation, string[]>> {
  const out = {} as Record<HistoryRelation, string[]>;
  for (const r of HISTORY_RELATIONS) {
    const rows = await sql<{ j: Record<string, unknown> }>`
      SELECT to_jsonb(x) - 'version_from' - 'version_to' AS j FROM ${sql.raw(`efa.${r}_as_of`)}(${at.toISOString()}::timestamptz) x`.execute(db.kysely);
    out[r] = canonical(rows.rows.map((x) => x.j));
  }
  return out;
}

const pinText = (type: string, id: string | null | undefined, name: string, lon: number, lat: number): string =>
  `${type}|${id ?? ''}|${name}|${lon.toFixed(6)}|${lat.toFixed(6)}`;

/** test/helpers/compare.ts's dbComparable, read from the as-of functions at `at` instead of the current tables. */
export async function asOfComparable(db: Db, at: Date): Promise<Comparable> {
  const k = db.kysely;
  const t = at.toISOString();
  const pins = await sql<{ type: string; id: string | null; name: string; lon: number; lat: number }>`
    SELECT type, id, name, ST_X(geom) AS lon, ST_Y(geom) AS lat FROM efa.pins_as_of(${t}::timestamptz)`.execute(k);
  const stops = await sql<{ t: string }>`
    SELECT id || '|' || name || '|' || array_to_string(mot_types, ',') AS t FROM efa.pins_as_of(${t}::timestamptz) WHERE type = 'STOP'`.execute(k);
  const lines = await sql<{ t: string }>`
    SELECT line_key || '|' || name || '|' || number || '|' || mot || '|' || direction AS t FROM efa.lines_as_of(${t}::timestamptz)`.execute(k);
  const stopLines = await sql<{ t: string }>`SELECT stop_id || '|' || line_key AS t FROM efa.stop_lines_as_of(${t}::timestamptz)`.execute(k);
  const notices = await sql<{ t: string }>`
    SELECT notice_id || '|' || type || '|' || valid_from || '|' || valid_to || '|' || array_to_string(ARRAY(SELECT unnest(lines) ORDER BY 1), ',') AS t
    FROM efa.notices_as_of(${t}::timestamptz)`.execute(k);
  const areas = await sql<{ t: string }>`
    SELECT area_key || '|' || concat_ws('|', to_char(ST_XMin(geom), 'FM990.00000'), to_char(ST_YMin(geom), 'FM990.00000'),
      to_char(ST_XMax(geom), 'FM990.00000'), to_char(ST_YMax(geom), 'FM990.00000')) AS t
    FROM efa.operating_areas_as_of(${t}::timestamptz)`.execute(k);
  const texts = (rows: { t: string }[]): string[] => rows.map((r) => r.t).sort();
  return {
    pins: pins.rows.map((p) => pinText(p.type, p.id, p.name, p.lon, p.lat)).sort(),
    stops: texts(stops.rows),
    lines: texts(lines.rows),
    stopLines: texts(stopLines.rows),
    notices: texts(notices.rows),
    areas: texts(areas.rows),
  };
}

/** A run's started_at and finished_at. */
export async function runTimes(db: Db, runId: string): Promise<{ startedAt: Date; finishedAt: Date }> {
  const r = await db.kysely.selectFrom('efa.runs').select(['started_at', 'finished_at']).where('run_id', '=', runId).executeTakeFirstOrThrow();
  if (r.finished_at === null) throw new Error(`run ${runId} has not finished`);
  return { startedAt: new Date(r.started_at), finishedAt: new Date(r.finished_at) };
}
