import { PointList } from '../util/point-list.js';
import { sql, type Kysely } from 'kysely';
import { PARKING } from '../efa/records.js';
import { sweptPinTypes } from '../relations/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import { regionBBox } from '../tiling/index.js';
import type { Database } from './tables.js';
import { readWkbPoints } from './ewkb.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/**
 * Where the database already knows live pins of one source, of the types a sweep asks for, inside
 * the region's envelope, as lon,lat pairs: what night two plans its tiles from. They come as one
 * MultiPoint's WKB (ST_Collect, ST_AsBinary), not a row per pin: at 200,000 pins on PGlite the rows'
 * decoding and the pin_key order of the pages this read in before were 1.4 of its 1.9 s, and nothing
 * holds an object per pin. The WKB crosses as base64 text: PGlite decodes a bytea's hex in JavaScript,
 * a character at a time (~0.45 s for the 4.2 MB of 200,000 pins), where Buffer decodes base64 natively.
 * The tiles planned from the points do not depend on their order. Only the source's own pins count:
 * another deployment's objects say nothing about where this one's are.
 */
export async function knownPinPoints(db: Kysely<Database>, source: string, cfg: CoordSweep, region: ResolvedRegion): Promise<Float64Array> {
  const [x0, y0, x1, y1] = regionBBox(region);
  const { any, types } = sweptPinTypes(cfg);
  const r = await sql<{ wkb: string | null }>`
    SELECT encode(ST_AsBinary(ST_Collect(geom)), 'base64') AS wkb FROM efa.pins
    WHERE source = ${source} AND deleted_at IS NULL AND (type = ANY(${types}::text[]) OR (${any}::boolean AND type <> ${PARKING}))
      AND geom && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326)`.execute(db);
  const wkb = r.rows[0]?.wkb;
  if (!wkb) return new Float64Array(0);
  const out = new PointList();
  // PostgreSQL's base64 breaks a line every 76 characters; Buffer's decoder skips the line breaks.
  readWkbPoints(Buffer.from(wkb, 'base64'), (x, y) => out.push(x, y));
  return out.points();
}

/** Live stops of one source: what the ServingLines part of a plan's budget is sized from. */
export async function knownStopCount(db: Kysely<Database>, source: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.pins WHERE source = ${source} AND type = 'STOP' AND deleted_at IS NULL`.execute(db);
  return r.rows[0]?.n ?? 0;
}
