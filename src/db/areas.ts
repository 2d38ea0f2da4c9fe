import { sql, type Kysely } from 'kysely';
import { repairedAreaGeometry, type AreaRow } from '../relations/index.js';
import type { Database } from './tables.js';

/**
 * Splits areas into those whose geometry PostGIS can make valid and those it cannot (a ring that
 * collapses to a line or a point): the latter go to efa.rejects instead of the table.
 */
export async function rejectUnrepairableAreas(
  db: Kysely<Database>,
  areas: readonly AreaRow[],
): Promise<{ ok: AreaRow[]; rejected: { area: AreaRow; reason: string }[] }> {
  const withGeom = areas.filter((a) => a.geojson !== null);
  if (withGeom.length === 0) return { ok: [...areas], rejected: [] };
  const result = await sql<{ i: number; empty: boolean; reason: string | null }>`
    SELECT i, g IS NULL OR ST_IsEmpty(g) AS empty, reason FROM (
      SELECT i, ${sql.raw(repairedAreaGeometry)} AS g, ST_IsValidReason(ST_GeomFromGeoJSON(geojson)) AS reason
      FROM unnest(${withGeom.map((a) => a.geojson)}::text[]) WITH ORDINALITY AS t(geojson, i)
    ) s`.execute(db);
  const bad = new Map(result.rows.filter((r) => r.empty).map((r) => [Number(r.i) - 1, r.reason ?? 'empty after repair']));
  const rejected = withGeom.flatMap((area, i) => (bad.has(i) ? [{ area, reason: `unrepairable polygon: ${bad.get(i)}` }] : []));
  const rejectedKeys = new Set(rejected.map((r) => r.area.area_key));
  return { ok: areas.filter((a) => !rejectedKeys.has(a.area_key)), rejected };
}
