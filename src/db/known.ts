import { PointList } from '../util/point-list.js';
import { sql, type Kysely } from 'kysely';
import { PARKING } from '../efa/records.js';
import { sweptPinTypes } from '../relations/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import { regionBBox } from '../tiling/index.js';
import type { Database } from './tables.js';
import { readWkbPoints } from './ewkb.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/** The fids one read of known pins covers: at most 250,000 pins, ~8 MB of base64. */
const FIDS_PER_READ = 250_000;

/**
 * Where the database already knows live pins of one source, of the types a sweep asks for, inside
 * the region's envelope, as lon,lat pairs: what night two plans its tiles from. They come as one
 * value per 250,000 fids, each pin's EWKB (`geom::bytea`, 25 bytes) laid end to end by string_agg
 * and sent as base64, not as a row per pin. At 200,000 pins on PGlite the rows' decoding and the
 * pin_key order of the pages this read before were 1.4 of its 1.9 s; PGlite decodes a bytea's hex
 * in JavaScript a character at a time (~0.45 s), where Buffer decodes base64 natively; and ST_Collect,
 * ST_AsBinary, ST_MakeEnvelope and `&&` were four more PostGIS functions for the first query of the
 * process to look up and run (first query 0.54-0.76 -> 0.29-0.33 s; PostgreSQL 220 -> 85 ms). The envelope is
 * applied here instead, to the same doubles. The tiles planned from the points do not depend on their
 * order. Only the source's own pins count: another deployment's objects say nothing about where this
 * one's are.
 */
export async function knownPinPoints(db: Kysely<Database>, source: string, cfg: CoordSweep, region: ResolvedRegion): Promise<Float64Array> {
  const [x0, y0, x1, y1] = regionBBox(region);
  const { any, types } = sweptPinTypes(cfg);
  const out = new PointList();
  // By ranges of fid (the primary key): at a million pins one value was 33 MB of base64 in a protocol
  // buffer twice that, and lifted night two's peak RSS on PostgreSQL past its 300 MB.
  const span = await sql<{ lo: string | null; hi: string | null }>`SELECT min(fid)::text AS lo, max(fid)::text AS hi FROM efa.pins`.execute(db);
  const lo = Number(span.rows[0]?.lo ?? NaN);
  const hi = Number(span.rows[0]?.hi ?? NaN);
  for (let from = lo; from <= hi; from += FIDS_PER_READ) {
    const r = await sql<{ ewkb: string | null }>`
      SELECT encode(string_agg(geom::bytea, ''::bytea), 'base64') AS ewkb FROM efa.pins
      WHERE fid >= ${from}::bigint AND fid < ${from + FIDS_PER_READ}::bigint AND source = ${source} AND deleted_at IS NULL
        AND (type = ANY(${types}::text[]) OR (${any}::boolean AND type <> ${PARKING}))`.execute(db);
    const ewkb = r.rows[0]?.ewkb;
    if (!ewkb) continue;
    // PostgreSQL's base64 breaks a line every 76 characters; Buffer's decoder skips the line breaks.
    readWkbPoints(Buffer.from(ewkb, 'base64'), (x, y) => {
      // What `geom && ST_MakeEnvelope(...)` kept: a point on the envelope's edge is inside.
      if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push(x, y);
    });
  }
  return out.points();
}

/** Live stops of one source: what the ServingLines part of a plan's budget is sized from. */
export async function knownStopCount(db: Kysely<Database>, source: string): Promise<number> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM efa.pins WHERE source = ${source} AND type = 'STOP' AND deleted_at IS NULL`.execute(db);
  return r.rows[0]?.n ?? 0;
}
