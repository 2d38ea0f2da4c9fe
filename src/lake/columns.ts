import type { Db } from '../db/index.js';
import { describeRelation, type ExportColumn, type ExportRelation, type ExportRow } from '../export/relation.js';
import type { BBox } from '../tiling/types.js';
import { columnExpression } from '../export/stream.js';
import type { LakeRelation } from './relations.js';

/**
 * The columns of a lake file: the table's, as `efa-sync export` describes them, less `source` (the
 * Hive partition column: engines add it from the path, and differ on a file that repeats it),
 * with a history's `valid` range split into valid_from / valid_to timestamps that every engine reads.
 */
export interface LakeColumns {
  readonly rel: ExportRelation;
  /** The SELECT list (aliases c0…, then the geometry's g_*), in `rel.columns` order. */
  readonly selectList: string;
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const RANGE_ENDS: readonly ExportColumn[] = [
  { name: 'valid_from', kind: 'datetime', comment: 'Start of the version (lower bound of efa.<relation>_history.valid, inclusive).', notNull: false },
  { name: 'valid_to', kind: 'datetime', comment: 'End of the version (upper bound of valid, exclusive): the partition day is its UTC day.', notNull: false },
];

export async function lakeColumns(db: Db, lake: LakeRelation): Promise<LakeColumns> {
  const described = await describeRelation(db, lake.name);
  const columns: ExportColumn[] = [];
  const list: string[] = [];
  for (const c of described.columns) {
    if (c.name === 'source') continue;
    if (c.name === 'valid' && lake.family === 'history') {
      columns.push(...RANGE_ENDS);
      list.push(`to_char(lower(t.valid) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, `to_char(upper(t.valid) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
      continue;
    }
    columns.push(c);
    list.push(columnExpression(c, 't'));
  }
  const aliased = list.map((e, i) => `${e} AS c${i}`);
  aliased.push(`to_char(${lake.timeSql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS part_time`);
  const g = described.geometry ? `t.${ident(described.geometry.name)}` : undefined;
  // A point's type and bbox are read from its WKB here: asking PostGIS for them costs the server three
  // times the WKB alone, for every row of the series.
  if (g && described.geometry?.type === 'Point') aliased.push(`ST_AsBinary(${g}, 'NDR') AS g`);
  else if (g) aliased.push(`GeometryType(${g}) AS g_type, ST_XMin(${g}) AS g_xmin, ST_YMin(${g}) AS g_ymin, ST_XMax(${g}) AS g_xmax, ST_YMax(${g}) AS g_ymax, ST_AsBinary(${g}, 'NDR') AS g`);
  return { rel: { ...described, columns }, selectList: aliased.join(', ') };
}

/** PostGIS answers GeometryType in capitals; GeoParquet names the types in OGC case. */
const OGC: Record<string, string> = {
  POINT: 'Point', LINESTRING: 'LineString', POLYGON: 'Polygon', MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString', MULTIPOLYGON: 'MultiPolygon', GEOMETRYCOLLECTION: 'GeometryCollection',
};

/** A fetched row as the shared Parquet writer takes it, and its partition time. */
export function toLakeRow(rel: ExportRelation, raw: Record<string, unknown>): { row: ExportRow; time: string | null } {
  const values = rel.columns.map((c, i) => {
    const v = raw[`c${i}`];
    if (v === undefined || v === null) return null;
    // node-postgres hands bytea as a Buffer, PGlite as a Uint8Array: the writer sees Uint8Array.
    return c.kind === 'binary' && v instanceof Uint8Array ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v;
  });
  const time = typeof raw['part_time'] === 'string' ? raw['part_time'] : null;
  const g = raw['g'];
  if (!rel.geometry || !(g instanceof Uint8Array)) return { row: { values, geometry: null, bbox: null, geometryType: null }, time };
  const geometry = new Uint8Array(g.buffer, g.byteOffset, g.byteLength);
  if (raw['g_type'] === undefined) {
    // ST_AsBinary(…, 'NDR') of a 2D point: byte order 1, type 1, x and y as little-endian doubles.
    const view = new DataView(geometry.buffer, geometry.byteOffset, geometry.byteLength);
    if (geometry.byteLength === 21 && view.getUint8(0) === 1 && view.getUint32(1, true) === 1) {
      const x = view.getFloat64(5, true);
      const y = view.getFloat64(13, true);
      // POINT EMPTY is NaN, NaN in WKB: no bbox.
      return { row: { values, geometry, bbox: Number.isNaN(x) ? null : [x, y, x, y], geometryType: 'Point' }, time };
    }
    // Not a 2D point (a Z or M point): written as it is, without a bbox of its own.
    return { row: { values, geometry, bbox: null, geometryType: 'Point' }, time };
  }
  const type = typeof raw['g_type'] === 'string' ? (OGC[raw['g_type']] ?? raw['g_type']) : null;
  const bbox: BBox = [Number(raw['g_xmin']), Number(raw['g_ymin']), Number(raw['g_xmax']), Number(raw['g_ymax'])];
  return { row: { values, geometry, bbox, geometryType: type }, time };
}
