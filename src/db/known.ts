import { PointList } from '../util/point-list.js';
import { sql, type Kysely } from 'kysely';
import { PARKING } from '../efa/records.js';
import { sweptPinTypes } from '../relations/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import { regionBBox } from '../tiling/index.js';
import type { Database } from './tables.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

const pageSize = 50_000;

/**
 * Where the database already knows live pins of one source, of the types a sweep asks for, inside
 * the region's envelope, as lon,lat pairs: what night two plans its tiles from. Read a page at a
 * time, so a million pins cost 16 MB and not a million objects. Only the source's own pins count:
 * another deployment's objects say nothing about where this one's are.
 */
export async function knownPinPoints(db: Kysely<Database>, source: string, cfg: CoordSweep, region: ResolvedRegion): Promise<Float64Array> {
  const [x0, y0, x1, y1] = regionBBox(region);
  const { any, types } = sweptPinTypes(cfg);
  const out = new PointList();
  let after = '';
  for (;;) {
    const page = await sql<{ k: string; x: number; y: number }>`
      SELECT pin_key AS k, ST_X(geom) AS x, ST_Y(geom) AS y FROM efa.pins
      WHERE source = ${source} AND deleted_at IS NULL AND (type = ANY(${types}::text[]) OR (${any}::boolean AND type <> ${PARKING}))
        AND geom && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326) AND pin_key > ${after}
      ORDER BY pin_key LIMIT ${pageSize}`.execute(db);
    if (page.rows.length === 0) break;
    for (const r of page.rows) out.push(r.x, r.y);
    after = page.rows[page.rows.length - 1]?.k ?? after;
  }
  return out.points();
}

/** Live stops of one source: what the ServingLines part of a plan's budget is sized from. */
export async function knownStopCount(db: Kysely<Database>, source: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.pins WHERE source = ${source} AND type = 'STOP' AND deleted_at IS NULL`.execute(db);
  return r.rows[0]?.n ?? 0;
}
