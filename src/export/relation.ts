import { sql } from 'kysely';
import type { Db, Tx } from '../db/connect.js';
import { ConfigError } from '../errors.js';
import type { BBox } from '../tiling/types.js';

/**
 * What a column becomes in a file. Every value reaches a writer already in this form: the SELECT
 * casts in PostgreSQL, so PGlite and node-postgres hand the writers the same JS types.
 */
export type ColumnKind = 'bool' | 'int32' | 'int64' | 'double' | 'text' | 'json' | 'datetime' | 'date' | 'binary';

export interface ExportColumn {
  readonly name: string;
  readonly kind: ColumnKind;
  /** The column's COMMENT, for the formats that have a place for it. */
  readonly comment: string | null;
  readonly notNull: boolean;
}

/** The geometry column of a relation: the first column of type geometry. */
export interface ExportGeometry {
  readonly name: string;
  /** OGC name from the column's type modifier: Point, Polygon, MultiPolygon, …; Geometry when unconstrained. */
  readonly type: string;
  readonly srid: number;
  readonly comment: string | null;
}

export interface ExportRelation {
  /** Unqualified name in schema efa (also the layer and table name in the file). */
  readonly name: string;
  readonly kind: 'table' | 'view' | 'materialized view';
  readonly comment: string | null;
  /** Every column but the geometry, in the relation's order. */
  readonly columns: readonly ExportColumn[];
  readonly geometry: ExportGeometry | undefined;
  /**
   * The integer key (`fid`, else a single-column integer primary key): GDAL's FID, the GeoPackage primary key.
   * Undefined for relations without an integer key: the writers then number the rows.
   */
  readonly key: string | undefined;
}

/** What a writer needs of the geometry of each row; the SELECT computes only that. */
export type GeometryEncoding = 'wkb' | 'geojson' | 'lonlat';

/** One row: the values of `columns` in order, and the geometry in the writer's encoding. */
export interface ExportRow {
  readonly values: readonly unknown[];
  /** WKB (little-endian) or GeoJSON text; null for a row without geometry. */
  readonly geometry: Uint8Array | string | null;
  /** The geometry's bounding box [minX, minY, maxX, maxY]; null without geometry. */
  readonly bbox: BBox | null;
  /** The OGC type name of the row's geometry (Point, MultiPolygon, …). */
  readonly geometryType: string | null;
  /** For the lonlat encoding: a point on the geometry, and its WKT when it is not a point. */
  readonly lon?: number | null;
  readonly lat?: number | null;
  readonly wkt?: string | null;
}

interface RelationRow {
  name: string;
  relkind: string;
  comment: string | null;
}

/** The tables and views of schema efa a user may export (partitions are reached through their parent). */
export async function listRelations(db: Db): Promise<RelationRow[]> {
  const result = await sql<RelationRow>`
    SELECT c.relname AS name, c.relkind::text AS relkind, obj_description(c.oid, 'pg_class') AS comment
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND c.relkind IN ('r', 'v', 'm', 'p') AND NOT c.relispartition
    ORDER BY c.relname`.execute(db.kysely);
  return result.rows;
}

interface ColumnRow {
  name: string;
  typname: string;
  category: string;
  comment: string | null;
  not_null: boolean;
  geometry_type: string | null;
  srid: number | null;
}

/**
 * The relation `name` (`stops` or `efa.stops`) with its columns, or a ConfigError naming it and
 * listing the relations there are.
 */
export async function describeRelation(db: Db, name: string): Promise<ExportRelation> {
  const bare = name.startsWith('efa.') ? name.slice('efa.'.length) : name;
  const relations = await listRelations(db);
  const found = relations.find((r) => r.name === bare);
  if (!found) {
    if (relations.length === 0) {
      throw new ConfigError(`--relation: the database has no schema efa to export "${name}" from; check --db, or run a job (or efa-sync migrate) first`, 'relation');
    }
    const valid = relations.map((r) => r.name).join(', ');
    throw new ConfigError(`--relation: efa has no table or view "${name}"; valid relations: ${valid}`, 'relation');
  }
  // postgis_typmod_* read the type modifier of a geometry column: geometry(Point, 4326) → Point, 4326.
  const result = await sql<ColumnRow>`
    SELECT a.attname AS name, t.typname, t.typcategory AS category, col_description(c.oid, a.attnum) AS comment,
           a.attnotnull AS not_null,
           CASE WHEN t.typname = 'geometry' THEN postgis_typmod_type(a.atttypmod) END AS geometry_type,
           CASE WHEN t.typname = 'geometry' THEN postgis_typmod_srid(a.atttypmod) END AS srid
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_type t ON t.oid = a.atttypid
    WHERE n.nspname = 'efa' AND c.relname = ${bare} AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attnum`.execute(db.kysely);
  let geometry: ExportGeometry | undefined;
  const columns: ExportColumn[] = [];
  for (const c of result.rows) {
    if (c.typname === 'geometry' && !geometry) {
      // efa stores EPSG:4326 throughout; a column without a declared SRID (a computed view column) holds it too.
      const srid = c.srid && c.srid > 0 ? c.srid : 4326;
      if (srid !== 4326) throw new ConfigError(`--relation: efa.${bare}.${c.name} has SRID ${srid}; export writes EPSG:4326 only`, 'relation');
      geometry = { name: c.name, type: (c.geometry_type ?? 'Geometry').replace(/ZM?$|M$/, ''), srid, comment: c.comment };
      continue;
    }
    columns.push({ name: c.name, kind: kindOf(c), comment: c.comment, notNull: c.not_null });
  }
  // The key: fid where the relation has one (the entity tables and their views), else a table's
  // single-column integer primary key (runs.run_id, run_tiles.run_tile_id).
  const primary = await sql<{ name: string }>`
    SELECT a.attname AS name
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE n.nspname = 'efa' AND c.relname = ${bare} AND i.indisprimary AND i.indnatts = 1`.execute(db.kysely);
  const isInteger = (c: ExportColumn | undefined): c is ExportColumn => c !== undefined && (c.kind === 'int64' || c.kind === 'int32');
  const fid = columns.find((c) => c.name === 'fid');
  const pk = columns.find((c) => c.name === primary.rows[0]?.name);
  const key = isInteger(fid) ? fid : isInteger(pk) ? pk : undefined;
  return {
    name: bare,
    kind: found.relkind === 'v' ? 'view' : found.relkind === 'm' ? 'materialized view' : 'table',
    comment: found.comment,
    columns,
    geometry,
    key: key?.name,
  };
}

function kindOf(c: ColumnRow): ColumnKind {
  switch (c.typname) {
    case 'bool':
      return 'bool';
    case 'int2':
    case 'int4':
      return 'int32';
    case 'int8':
      return 'int64';
    case 'float4':
    case 'float8':
    case 'numeric':
      return 'double';
    case 'timestamptz':
    case 'timestamp':
      return 'datetime';
    case 'date':
      return 'date';
    case 'bytea':
      return 'binary';
    case 'json':
    case 'jsonb':
      return 'json';
    default:
      // Arrays (mot_types int[], lines text[]) travel as JSON; everything else as its text form.
      return c.category === 'A' ? 'json' : 'text';
  }
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The SELECT expression of a column: one JS type per kind whatever the driver. */
function columnExpression(c: ExportColumn): string {
  const col = ident(c.name);
  switch (c.kind) {
    case 'int64':
      return `${col}::int8::text`;
    case 'int32':
      return `${col}::int4`;
    case 'double':
      return `${col}::float8`;
    case 'datetime':
      // The GeoPackage DATETIME form, which GDAL, FlatGeobuf readers and Parquet converters all parse.
      return `to_char(${col}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'date':
      return `to_char(${col}, 'YYYY-MM-DD')`;
    case 'json':
      return `to_jsonb(${col})::text`;
    case 'text':
      return `${col}::text`;
    case 'bool':
    case 'binary':
      return col;
  }
}

function selectSql(rel: ExportRelation, encoding: GeometryEncoding): string {
  const list = rel.columns.map((c, i) => `${columnExpression(c)} AS c${i}`);
  const g = rel.geometry ? ident(rel.geometry.name) : undefined;
  if (g) {
    list.push(`GeometryType(${g}) AS g_type`);
    list.push(`ST_XMin(${g}) AS g_xmin, ST_YMin(${g}) AS g_ymin, ST_XMax(${g}) AS g_xmax, ST_YMax(${g}) AS g_ymax`);
    if (encoding === 'wkb') list.push(`ST_AsBinary(${g}, 'NDR') AS g`);
    else if (encoding === 'geojson') list.push(`ST_AsGeoJSON(${g}, 15) AS g`);
    else {
      // A point is its own lon/lat; anything else gets a point on its surface and its WKT.
      list.push(`CASE WHEN GeometryType(${g}) = 'POINT' THEN ${g} ELSE ST_PointOnSurface(${g}) END AS g_point`);
      list.push(`CASE WHEN GeometryType(${g}) = 'POINT' THEN NULL ELSE ST_AsText(${g}, 15) END AS g_wkt`);
    }
  }
  const inner = `SELECT ${list.join(', ')} FROM efa.${ident(rel.name)}${rel.key ? ` ORDER BY ${ident(rel.key)}` : ''}`;
  if (g && encoding === 'lonlat') return `SELECT q.*, ST_X(q.g_point) AS g_lon, ST_Y(q.g_point) AS g_lat FROM (${inner}) q`;
  return inner;
}

/** PostGIS answers GeometryType in capitals (POINT, MULTIPOLYGON); the formats name them in OGC case. */
const ogcNames: Record<string, string> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
  MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon',
  GEOMETRYCOLLECTION: 'GeometryCollection',
};

type RawRow = Record<string, unknown>;

function toRow(rel: ExportRelation, raw: RawRow): ExportRow {
  const values = rel.columns.map((c, i) => normalise(c.kind, raw[`c${i}`]));
  if (!rel.geometry) return { values, geometry: null, bbox: null, geometryType: null };
  const type = typeof raw['g_type'] === 'string' ? (ogcNames[raw['g_type']] ?? raw['g_type']) : null;
  const num = (k: string): number => Number(raw[k]);
  const bbox = type === null ? null : ([num('g_xmin'), num('g_ymin'), num('g_xmax'), num('g_ymax')] as const);
  const g = raw['g'];
  const geometry = g instanceof Uint8Array ? new Uint8Array(g.buffer, g.byteOffset, g.byteLength) : typeof g === 'string' ? g : null;
  const lonlat =
    'g_lon' in raw
      ? { lon: raw['g_lon'] === null ? null : Number(raw['g_lon']), lat: raw['g_lat'] === null ? null : Number(raw['g_lat']), wkt: (raw['g_wkt'] as string | null) ?? null }
      : {};
  return { values, geometry, bbox, geometryType: type, ...lonlat };
}

function normalise(kind: ColumnKind, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  // node-postgres returns bytea as a Buffer, PGlite as a Uint8Array: the writers see Uint8Array.
  if (kind === 'binary' && v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

export interface StreamOptions {
  /** Rows per FETCH: the most rows held in memory at once. */
  readonly batchSize?: number;
  /** Called once, before the first batch, with the number of rows the export will write. */
  readonly onCount?: (count: number) => void | Promise<void>;
}

/**
 * Streams every row of the relation through `onBatch`, `batchSize` rows at a time, through a
 * server-side cursor in one read-only REPEATABLE READ transaction: the count and the rows are of
 * the same snapshot (a nightly run committing meanwhile changes neither), and the relation is
 * never held in memory whole, in this process or the driver.
 */
export async function streamRelation(
  db: Db,
  rel: ExportRelation,
  encoding: GeometryEncoding,
  onBatch: (rows: readonly ExportRow[]) => void | Promise<void>,
  opts: StreamOptions = {},
): Promise<number> {
  const batchSize = opts.batchSize ?? 5_000;
  return db.transaction(async (tx: Tx) => {
    await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`.execute(tx.kysely);
    const counted = await sql<{ n: string | number }>`SELECT count(*) AS n FROM ${sql.raw(`efa.${ident(rel.name)}`)}`.execute(tx.kysely);
    const count = Number(counted.rows[0]?.n ?? 0);
    await opts.onCount?.(count);
    await sql.raw(`DECLARE efa_export NO SCROLL CURSOR FOR ${selectSql(rel, encoding)}`).execute(tx.kysely);
    let total = 0;
    for (;;) {
      const fetched = await sql.raw<RawRow>(`FETCH FORWARD ${batchSize} FROM efa_export`).execute(tx.kysely);
      if (fetched.rows.length === 0) break;
      total += fetched.rows.length;
      await onBatch(fetched.rows.map((r) => toRow(rel, r)));
      if (fetched.rows.length < batchSize) break;
    }
    await sql`CLOSE efa_export`.execute(tx.kysely);
    return total;
  });
}
