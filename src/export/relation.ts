import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
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
  /**
   * For a one-dimensional array of a scalar type (int[], text[]): the kind of its elements. The
   * column still travels as JSON text (kind json); Parquet writes it as a list of these.
   */
  readonly element?: ColumnKind | undefined;
}

/** The geometry column of a relation: the first column of type geometry. */
export interface ExportGeometry {
  readonly name: string;
  /** OGC name from the column's type modifier: Point, Polygon, MultiPolygon, …; Geometry when unconstrained. */
  readonly type: string;
  /** The SRID written: always 4326 (other SRIDs are transformed by PostGIS on the way out). */
  readonly srid: number;
  /** The column's declared SRID: 4326, another EPSG code (transformed), or 0 (unconstrained: per row). */
  readonly sourceSrid: number;
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
  element: string | null;
  dims: number;
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
           CASE WHEN t.typname = 'geometry' THEN postgis_typmod_srid(a.atttypmod) END AS srid,
           et.typname AS element, a.attndims AS dims
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
    WHERE n.nspname = 'efa' AND c.relname = ${bare} AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attnum`.execute(db.kysely);
  let geometry: ExportGeometry | undefined;
  const columns: ExportColumn[] = [];
  for (const c of result.rows) {
    if (c.typname === 'geometry' && !geometry) {
      // efa stores EPSG:4326; a table an operator adds may declare another SRID (PostGIS transforms
      // it on the way out), or none (a computed view column: each row's own SRID decides, see stream.ts).
      const sourceSrid = c.srid && c.srid > 0 ? c.srid : 0;
      if (sourceSrid !== 0 && sourceSrid !== 4326) await assertTransformable(db, `efa.${bare}.${c.name}`, sourceSrid);
      geometry = { name: c.name, type: (c.geometry_type ?? 'Geometry').replace(/ZM?$|M$/, ''), srid: 4326, sourceSrid, comment: c.comment };
      continue;
    }
    const kind = kindOf(c);
    const element = c.category === 'A' && c.element !== null && Number(c.dims) <= 1 ? scalarKind(c.element) : undefined;
    columns.push({ name: c.name, kind, comment: c.comment, notNull: c.not_null, ...(element ? { element } : {}) });
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

/** An SRID PostGIS can transform from: one spatial_ref_sys knows (with a proj4 or WKT definition). */
async function assertTransformable(db: Db, column: string, srid: number): Promise<void> {
  const known = await sql<{ n: number }>`SELECT count(*)::int AS n FROM spatial_ref_sys WHERE srid = ${srid}`.execute(db.kysely);
  if (Number(known.rows[0]?.n ?? 0) === 0) {
    throw new ConfigError(
      `--relation: ${column} is in SRID ${srid}, which spatial_ref_sys does not know, so it cannot be transformed to EPSG:4326; ` +
        'transform the column (ST_Transform) or add the SRID to spatial_ref_sys',
      'relation',
    );
  }
}

/** The kind of an array's elements, for the scalar types a Parquet list holds; undefined otherwise. */
function scalarKind(typname: string): ColumnKind | undefined {
  const kind = kindOf({ typname, category: '' } as ColumnRow);
  return kind === 'bool' || kind === 'int32' || kind === 'int64' || kind === 'double' || (kind === 'text' && typname !== 'geometry') ? kind : undefined;
}

function kindOf(c: Pick<ColumnRow, 'typname' | 'category'>): ColumnKind {
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
    case 'varchar':
    case 'text':
    case 'bpchar':
    case 'name':
      return 'text';
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

