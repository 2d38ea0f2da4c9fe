import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { lineKey } from '../../src/relations/index.js';
import type { Truth } from '../../src/sim/index.js';

/**
 * The database's current content and the simulator's ground truth, both reduced to sorted lists of
 * comparable strings, so a test can `expect(db).toEqual(truth)` relation by relation.
 */
export interface Comparable {
  pins: string[];
  stops: string[];
  lines: string[];
  stopLines: string[];
  notices: string[];
  areas: string[];
}

const pinText = (type: string, id: string | null | undefined, name: string, lon: number, lat: number): string =>
  `${type}|${id ?? ''}|${name}|${lon.toFixed(6)}|${lat.toFixed(6)}`;

export function truthComparable(truth: Truth): Comparable {
  return {
    pins: truth.pins.map((p) => pinText(p.type, p.id, p.name, p.lon, p.lat)).sort(),
    stops: truth.stops.map((s) => `${s.id}|${s.name}|${[...s.motTypes].sort((a, b) => a - b).join(',')}`).sort(),
    lines: truth.lines.map((l) => `${l.id}|${l.name}|${l.number}|${l.mot}|${l.direction}`).sort(),
    stopLines: truth.stopLines.map((p) => `${p.stopId}|${lineKey({ id: p.lineId, name: '', number: '', mot: 0, direction: '', attrs: {} })}`).sort(),
    notices: truth.notices.map((n) => `${n.id}|${n.type}|${n.validFrom}|${n.validTo}|${[...n.lines].sort().join(',')}`).sort(),
    // The envelope of each ring, from [lat, lon] points: catches a lat/lon swap in the stored geometry.
    areas: truth.providers
      .flatMap((p) =>
        p.areas.map((a) => {
          const lons = a.polygon.map((pt) => pt[1]);
          const lats = a.polygon.map((pt) => pt[0]);
          const env = [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)].map((x) => x.toFixed(5));
          return `${p.id}/${a.id}|${env.join('|')}`;
        }),
      )
      .sort(),
  };
}

/** The database's live rows, of one source when `source` is given. */
export async function dbComparable(db: Db, source?: string): Promise<Comparable> {
  const k = db.kysely;
  const src = source ?? null;
  const of = sql`(${src}::text IS NULL OR source = ${src}::text)`;
  const pins = await sql<{ type: string; id: string | null; name: string; lon: number; lat: number }>`
    SELECT type, id, name, ST_X(geom) AS lon, ST_Y(geom) AS lat FROM efa.pins WHERE deleted_at IS NULL AND ${of}`.execute(k);
  const stops = await sql<{ t: string }>`
    SELECT stop_id || '|' || name || '|' || array_to_string(mot_types, ',') AS t FROM efa.stops WHERE deleted_at IS NULL AND ${of}`.execute(k);
  const lines = await sql<{ t: string }>`
    SELECT line_key || '|' || name || '|' || number || '|' || mot || '|' || direction AS t FROM efa.lines WHERE deleted_at IS NULL AND ${of}`.execute(k);
  const stopLines = await sql<{ t: string }>`SELECT stop_id || '|' || line_key AS t FROM efa.stop_lines WHERE deleted_at IS NULL AND ${of}`.execute(k);
  const notices = await sql<{ t: string }>`
    SELECT notice_id || '|' || type || '|' || valid_from || '|' || valid_to || '|' || array_to_string(ARRAY(SELECT unnest(lines) ORDER BY 1), ',') AS t
    FROM efa.notices WHERE ended_at IS NULL AND ${of}`.execute(k);
  const areas = await sql<{ t: string }>`
    SELECT area_key || '|' || concat_ws('|', to_char(ST_XMin(geom), 'FM990.00000'), to_char(ST_YMin(geom), 'FM990.00000'),
      to_char(ST_XMax(geom), 'FM990.00000'), to_char(ST_YMax(geom), 'FM990.00000')) AS t
    FROM efa.operating_areas WHERE deleted_at IS NULL AND ${of}`.execute(k);
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
