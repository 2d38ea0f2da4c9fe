import { sql } from 'kysely';
import type { Db, Tx } from '../db/connect.js';
import { ConfigError } from '../errors.js';
import type { BBox } from '../tiling/types.js';
import type { ColumnKind, ExportColumn, ExportRelation, ExportRow, GeometryEncoding } from './relation.js';

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The rows an export keeps: a checked `--where` condition and a `--bbox` (both optional). */
export interface RowFilter {
  /** A condition checked by `checkedWhere` (where.ts): only column names, literals, operators and allowed functions. */
  readonly where?: string | undefined;
  /** [minLon, minLat, maxLon, maxLat] in EPSG:4326: the rows whose geometry intersects it. */
  readonly bbox?: BBox | undefined;
}

/**
 * The SELECT expression of a column: one JS type per kind whatever the driver (the export's writers
 * and the lake's take the same), optionally qualified by a table alias.
 */
export function columnExpression(c: ExportColumn, alias?: string): string {
  const col = alias === undefined ? ident(c.name) : `${alias}.${ident(c.name)}`;
  switch (c.kind) {
    case 'int64':
      return `${col}::int8::text`;
    case 'int32':
      return `${col}::int4`;
    case 'double':
      return `${col}::float8`;
    case 'datetime':
      // The GeoPackage DATETIME form, which GDAL, FlatGeobuf readers and Parquet converters all parse.
      // ±infinity has no place in any of the formats: NULL, and a flag column counts them (a warning).
      return `CASE WHEN isfinite(${col}::timestamptz) THEN to_char(${col}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END`;
    case 'date':
      return `CASE WHEN isfinite(${col}) THEN to_char(${col}, 'YYYY-MM-DD') END`;
    case 'json':
      return `to_jsonb(${col})::text`;
    case 'text':
      return `${col}::text`;
    case 'bool':
    case 'binary':
      return col;
  }
}

const hasInfinity = (kind: ColumnKind): boolean => kind === 'datetime' || kind === 'date';

/**
 * The geometry as written: EMPTY becomes NULL (FlatGeobuf readers choke on an empty geometry, and
 * a GeoPackage extent would take in its 0,0), and anything not in EPSG:4326 is transformed to it.
 * An unconstrained column (sourceSrid 0) is decided per row: 4326 stays, another SRID is
 * transformed, and SRID 0 is refused before the first row (`assertRowSrids`).
 */
function geometryExpression(rel: ExportRelation): string | undefined {
  if (!rel.geometry) return undefined;
  const g = ident(rel.geometry.name);
  const in4326 =
    rel.geometry.sourceSrid === 4326
      ? g
      : rel.geometry.sourceSrid === 0
        ? `CASE WHEN ST_SRID(${g}) IN (0, 4326) THEN ST_SetSRID(${g}, 4326) ELSE ST_Transform(${g}, 4326) END`
        : `ST_Transform(${g}, 4326)`;
  return `CASE WHEN ST_IsEmpty(${g}) THEN NULL ELSE ${in4326} END`;
}

/** The WHERE clause of the export's queries (count and rows), or '' for every row. */
function whereSql(rel: ExportRelation, filter: RowFilter): string {
  const conditions: string[] = [];
  if (filter.where) conditions.push(`(${filter.where})`);
  if (filter.bbox) {
    if (!rel.geometry) throw new ConfigError(`--bbox: efa.${rel.name} has no geometry column to select by`, 'bbox');
    const g = ident(rel.geometry.name);
    const [x0, y0, x1, y1] = filter.bbox.map((n) => Number(n).toString());
    const box = `ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1}, 4326)`;
    // On the column itself, so its GiST index serves the test: the box goes to the column's SRID. A
    // column without a declared SRID has no single one to go to: each row is taken to 4326 (no index).
    const srid = rel.geometry.sourceSrid;
    if (srid === 0) conditions.push(`ST_Intersects(CASE WHEN ST_SRID(${g}) IN (0, 4326) THEN ST_SetSRID(${g}, 4326) ELSE ST_Transform(${g}, 4326) END, ${box})`);
    else conditions.push(`ST_Intersects(${g}, ${srid === 4326 ? box : `ST_Transform(${box}, ${srid})`})`);
  }
  return conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
}

function selectSql(rel: ExportRelation, encoding: GeometryEncoding, filter: RowFilter): string {
  const list = rel.columns.map((c, i) => `${columnExpression(c)} AS c${i}`);
  rel.columns.forEach((c, i) => {
    if (hasInfinity(c.kind)) list.push(`NOT isfinite(${ident(c.name)}) AS inf${i}`);
  });
  const geometry = geometryExpression(rel);
  const from = `efa.${ident(rel.name)}${whereSql(rel, filter)}${rel.key ? ` ORDER BY ${ident(rel.key)}` : ''}`;
  if (!geometry) return `SELECT ${list.join(', ')} FROM ${from}`;
  const g = 'q.g_value';
  const outer = [
    'q.*',
    `GeometryType(${g}) AS g_type`,
    `ST_XMin(${g}) AS g_xmin, ST_YMin(${g}) AS g_ymin, ST_XMax(${g}) AS g_xmax, ST_YMax(${g}) AS g_ymax`,
  ];
  if (encoding === 'wkb') outer.push(`ST_AsBinary(${g}, 'NDR') AS g`);
  else if (encoding === 'geojson') outer.push(`ST_AsGeoJSON(${g}, 15) AS g`);
  else {
    // A point is its own lon/lat; anything else gets a point on its surface; every geometry its WKT.
    outer.push(`ST_X(CASE WHEN GeometryType(${g}) = 'POINT' THEN ${g} ELSE ST_PointOnSurface(${g}) END) AS g_lon`);
    outer.push(`ST_Y(CASE WHEN GeometryType(${g}) = 'POINT' THEN ${g} ELSE ST_PointOnSurface(${g}) END) AS g_lat`);
    outer.push(`ST_AsText(${g}, 15) AS g_wkt`);
  }
  return `SELECT ${outer.join(', ')} FROM (SELECT ${[...list, `${geometry} AS g_value`].join(', ')} FROM ${from}) q`;
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
  readonly filter?: RowFilter;
  /** Called once, before the first batch, with the number of rows the export will write. */
  readonly onCount?: (count: number) => void | Promise<void>;
  /** What was written other than asked (infinite times as NULL): one line per column. */
  readonly onWarning?: (message: string) => void;
}

/**
 * A geometry column without a declared SRID whose rows have none either: their coordinates could be
 * anything, and labelling them EPSG:4326 would be a guess. Refused before the first row is written.
 */
async function assertRowSrids(tx: Tx, rel: ExportRelation, filter: RowFilter): Promise<void> {
  if (!rel.geometry || rel.geometry.sourceSrid !== 0) return;
  const g = ident(rel.geometry.name);
  const where = whereSql(rel, { where: filter.where });
  const found = await sql.raw<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM efa.${ident(rel.name)}${where}${where ? ' AND' : ' WHERE'} ST_SRID(${g}) = 0 AND NOT ST_IsEmpty(${g}) LIMIT 1) s`,
  ).execute(tx.kysely);
  if (Number(found.rows[0]?.n ?? 0) > 0) {
    throw new ConfigError(
      `--relation: efa.${rel.name}.${rel.geometry.name} holds geometries without an SRID (0), so their coordinate system is unknown; ` +
        `set it (UPDATE … SET ${rel.geometry.name} = ST_SetSRID(${rel.geometry.name}, <srid>)) or export a view that does`,
      'relation',
    );
  }
}

/**
 * SQLSTATE classes of an error in the text or the values of a condition: 22 (data exception: a bad
 * cast, a division by zero) and 42 (syntax, an unknown function or operator, a type mismatch), but
 * not 42501 (a privilege the role lacks, which is no fault of the condition).
 */
function isConditionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('42')) && code !== '42501';
}

/** Runs `fn`; a condition error the server reports while a --where is given becomes a ConfigError naming --where. */
async function blamingWhere<T>(where: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (where === undefined || !isConditionError(error)) throw error;
    const said = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`--where: the database cannot evaluate the condition (${said}); correct it (psql's \\d efa.<relation> lists the columns and their types)`, 'where');
  }
}

/**
 * Streams every row of each relation through `onBatch`, `batchSize` rows at a time, through a
 * server-side cursor in one read-only REPEATABLE READ transaction: the counts and the rows of every
 * relation are of the same snapshot (a nightly run committing meanwhile changes none), and a
 * relation is never held in memory whole, in this process or the driver. READ ONLY also bounds
 * what a `--where` condition could do, beside its own check.
 */
export async function streamRelations(
  db: Db,
  parts: readonly {
    readonly rel: ExportRelation;
    readonly encoding: GeometryEncoding;
    /** The relation's checked --where condition. */
    readonly where?: string | undefined;
    readonly onBatch: (rows: readonly ExportRow[]) => void | Promise<void>; readonly onCount?: (count: number) => void | Promise<void>;
  }[],
  opts: Omit<StreamOptions, 'onCount'> = {},
): Promise<number[]> {
  const batchSize = opts.batchSize ?? 5_000;
  return db.transaction(async (tx: Tx) => {
    await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`.execute(tx.kysely);
    const totals: number[] = [];
    for (const part of parts) {
      const { rel } = part;
      const filter: RowFilter = { ...opts.filter, where: part.where };
      // The count evaluates the condition on every row before any is written: an error the server
      // finds in it (a type, a cast, a division by zero) is the condition's, told as --where's.
      const counted = await blamingWhere(part.where, async () => {
        await assertRowSrids(tx, rel, filter);
        return sql.raw<{ n: string | number }>(`SELECT count(*) AS n FROM efa.${ident(rel.name)}${whereSql(rel, filter)}`).execute(tx.kysely);
      });
      await part.onCount?.(Number(counted.rows[0]?.n ?? 0));
      await sql.raw(`DECLARE efa_export NO SCROLL CURSOR FOR ${selectSql(rel, part.encoding, filter)}`).execute(tx.kysely);
      const infinite = new Map<number, number>();
      let total = 0;
      for (;;) {
        const fetched = await sql.raw<RawRow>(`FETCH FORWARD ${batchSize} FROM efa_export`).execute(tx.kysely);
        if (fetched.rows.length === 0) break;
        total += fetched.rows.length;
        for (const r of fetched.rows) {
          rel.columns.forEach((c, i) => {
            if (hasInfinity(c.kind) && r[`inf${i}`] === true) infinite.set(i, (infinite.get(i) ?? 0) + 1);
          });
        }
        await part.onBatch(fetched.rows.map((r) => toRow(rel, r)));
        if (fetched.rows.length < batchSize) break;
        // PGlite answers in this thread through promises alone: without a turn of the event loop
        // between batches, a signal handler (removing the temporary file, exiting 130/143) and every
        // timer would wait for the last row of the export.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await sql`CLOSE efa_export`.execute(tx.kysely);
      for (const [i, n] of infinite) {
        opts.onWarning?.(`efa.${rel.name}.${rel.columns[i]?.name ?? '?'}: ${n} infinite value(s) ('infinity'/'-infinity') written as NULL, which every format can hold`);
      }
      totals.push(total);
    }
    return totals;
  });
}
