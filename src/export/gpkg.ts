import Database from 'better-sqlite3';
import type { ColumnKind, ExportRelation, ExportRow } from './relation.js';
import type { WriteSink } from './target.js';
import type { ExportWriter, LayerWriter, WriterModule } from './writer.js';
import type { BBox } from '../tiling/types.js';

/**
 * GeoPackage 1.3 (OGC 12-128r17), written table by table: gpkg_spatial_ref_sys with its three
 * required rows, gpkg_contents, gpkg_geometry_columns, and the feature table whose geometry is a
 * GeoPackage binary header followed by little-endian WKB. Column comments go to gpkg_data_columns
 * (the Schema extension), where GDAL (3.7+) and QGIS read a field's description. One layer per
 * relation. Each geometry column has its spatial index (the gpkg_rtree_index extension): the
 * `rtree_<table>_<column>` virtual table, filled as the rows are written, and the spec's triggers,
 * created once the rows are in (they call ST_* functions GDAL provides, which plain SQLite has not),
 * so an editor keeps the index right. EMPTY geometries arrive as NULL (stream.ts): no extent takes in 0,0.
 */

/** WKT of EPSG:4326 as GDAL writes it into gpkg_spatial_ref_sys. */
const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],' +
  'PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],' +
  'AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]';

const CORE_TABLES = `
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL,
  z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name), CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_extensions (
  table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL, scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
CREATE TABLE gpkg_data_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, name TEXT, title TEXT, description TEXT, mime_type TEXT,
  constraint_name TEXT,
  CONSTRAINT pk_gdc PRIMARY KEY (table_name, column_name), CONSTRAINT gdc_tn UNIQUE (table_name, name));
`;

const sqliteTypes: Record<ColumnKind, string> = {
  bool: 'BOOLEAN',
  int32: 'INTEGER',
  int64: 'INTEGER',
  double: 'REAL',
  text: 'TEXT',
  json: 'TEXT',
  datetime: 'DATETIME',
  date: 'DATE',
  binary: 'BLOB',
};

const q = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** GeoPackage binary: 'GP', version 0, flags, srs_id, the envelope (none for a point), then the WKB. */
export function gpkgGeometry(wkb: Uint8Array, srid: number, bbox: BBox, isPoint: boolean): Buffer {
  const envelope = isPoint ? 0 : 1;
  const header = Buffer.alloc(8 + (envelope ? 32 : 0));
  header.write('GP', 0, 'latin1');
  header.writeUInt8(0, 2);
  // bit 0: little-endian header; bits 1-3: envelope [minx, maxx, miny, maxy] or none.
  header.writeUInt8(1 | (envelope << 1), 3);
  header.writeInt32LE(srid, 4);
  if (envelope) {
    header.writeDoubleLE(bbox[0], 8);
    header.writeDoubleLE(bbox[2], 16);
    header.writeDoubleLE(bbox[1], 24);
    header.writeDoubleLE(bbox[3], 32);
  }
  return Buffer.concat([header, wkb]);
}

function sqliteValue(kind: ColumnKind, v: unknown): unknown {
  if (v === null) return null;
  switch (kind) {
    case 'bool':
      return v ? 1 : 0;
    case 'int64':
      return BigInt(v as string);
    case 'binary':
      return Buffer.from(v as Uint8Array);
    default:
      return v;
  }
}

/** better-sqlite3 loads its native module on first use: this makes a missing build fail here, by name. */
export function checkSqlite(): void {
  new Database(':memory:').close();
}

/** The triggers of the gpkg_rtree_index extension (GeoPackage 1.3, annex F.3), for table t, geometry c, key i. */
function rtreeTriggers(t: string, c: string, i: string): string {
  const r = q(`rtree_${t}_${c}`);
  const n = (suffix: string): string => q(`rtree_${t}_${c}_${suffix}`);
  const [T, C, I] = [q(t), q(c), q(i)];
  const upsert = `INSERT OR REPLACE INTO ${r} VALUES (NEW.${I}, ST_MinX(NEW.${C}), ST_MaxX(NEW.${C}), ST_MinY(NEW.${C}), ST_MaxY(NEW.${C}))`;
  return `
CREATE TRIGGER ${n('insert')} AFTER INSERT ON ${T} WHEN (NEW.${C} NOT NULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN ${upsert}; END;
CREATE TRIGGER ${n('update1')} AFTER UPDATE OF ${C} ON ${T} WHEN OLD.${I} = NEW.${I} AND (NEW.${C} NOTNULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN ${upsert}; END;
CREATE TRIGGER ${n('update2')} AFTER UPDATE OF ${C} ON ${T} WHEN OLD.${I} = NEW.${I} AND (NEW.${C} ISNULL OR ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id = OLD.${I}; END;
CREATE TRIGGER ${n('update3')} AFTER UPDATE ON ${T} WHEN OLD.${I} != NEW.${I} AND (NEW.${C} NOTNULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id = OLD.${I}; ${upsert}; END;
CREATE TRIGGER ${n('update4')} AFTER UPDATE ON ${T} WHEN OLD.${I} != NEW.${I} AND (NEW.${C} ISNULL OR ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id IN (OLD.${I}, NEW.${I}); END;
CREATE TRIGGER ${n('delete')} AFTER DELETE ON ${T} WHEN OLD.${C} NOT NULL
BEGIN DELETE FROM ${r} WHERE id = OLD.${I}; END;`;
}

/** One relation as a table of the GeoPackage; `finish` registers it once its rows and extent are known. */
function addLayer(db: Database.Database, rel: ExportRelation): LayerWriter & { finish(): void } {
  const table = rel.name;
  // The key becomes the INTEGER PRIMARY KEY (GDAL's FID); a relation without one gets its rows numbered.
  const keyName = rel.key ?? 'fid';
  const others = rel.columns.filter((c) => c.name !== rel.key);
  const defs = [`${q(keyName)} INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`];
  if (rel.geometry) defs.push(`${q(rel.geometry.name)} ${rel.geometry.type === 'Geometry' ? 'GEOMETRY' : rel.geometry.type.toUpperCase()}`);
  for (const c of others) defs.push(`${q(c.name)} ${sqliteTypes[c.kind]}${c.notNull ? ' NOT NULL' : ''}`);
  db.exec(`CREATE TABLE ${q(table)} (${defs.join(', ')})`);
  const rtree = rel.geometry ? q(`rtree_${table}_${rel.geometry.name}`) : undefined;
  if (rtree) db.exec(`CREATE VIRTUAL TABLE ${rtree} USING rtree(id, minx, maxx, miny, maxy)`);
  const indexRow = rtree ? db.prepare(`INSERT INTO ${rtree} VALUES (?, ?, ?, ?, ?)`) : undefined;

  const insertColumns = [...(rel.key ? [rel.key] : []), ...(rel.geometry ? [rel.geometry.name] : []), ...others.map((c) => c.name)];
  const insert = db.prepare(`INSERT INTO ${q(table)} (${insertColumns.map(q).join(', ')}) VALUES (${insertColumns.map(() => '?').join(', ')})`);
  const keyIndex = rel.key ? rel.columns.findIndex((c) => c.name === rel.key) : -1;
  const otherIndexes = others.map((c) => rel.columns.indexOf(c));
  const extent = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const seenTypes = new Set<string>();
  const srid = rel.geometry?.srid ?? 0;

  const insertBatch = db.transaction((rows: readonly ExportRow[]) => {
    for (const row of rows) {
      const params: unknown[] = [];
      if (keyIndex >= 0) params.push(sqliteValue('int64', row.values[keyIndex]));
      const bbox = rel.geometry && row.geometry instanceof Uint8Array ? row.bbox : null;
      if (rel.geometry) {
        if (row.geometry instanceof Uint8Array && bbox) {
          params.push(gpkgGeometry(row.geometry, srid, bbox, row.geometryType === 'Point'));
          extent.minX = Math.min(extent.minX, bbox[0]);
          extent.minY = Math.min(extent.minY, bbox[1]);
          extent.maxX = Math.max(extent.maxX, bbox[2]);
          extent.maxY = Math.max(extent.maxY, bbox[3]);
          if (row.geometryType) seenTypes.add(row.geometryType);
        } else params.push(null);
      }
      for (const i of otherIndexes) params.push(sqliteValue(rel.columns[i]?.kind ?? 'text', row.values[i]));
      const { lastInsertRowid } = insert.run(...params);
      if (indexRow && bbox) indexRow.run(lastInsertRowid, bbox[0], bbox[2], bbox[1], bbox[3]);
    }
  });

  return {
    begin: () => undefined,
    write: (rows) => insertBatch(rows),
    finish: () => {
      const hasExtent = Number.isFinite(extent.minX);
      db.prepare(
        'INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        table,
        rel.geometry ? 'features' : 'attributes',
        table,
        rel.comment ?? '',
        hasExtent ? extent.minX : null,
        hasExtent ? extent.minY : null,
        hasExtent ? extent.maxX : null,
        hasExtent ? extent.maxY : null,
        rel.geometry ? srid : null,
      );
      if (rel.geometry) {
        // An unconstrained column (a computed view column) that held one type only is declared as that type.
        const declared = rel.geometry.type !== 'Geometry' ? rel.geometry.type : seenTypes.size === 1 ? [...seenTypes][0] ?? 'Geometry' : 'Geometry';
        db.prepare('INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)').run(table, rel.geometry.name, declared.toUpperCase(), srid);
        db.exec(rtreeTriggers(table, rel.geometry.name, keyName));
        db.prepare('INSERT INTO gpkg_extensions VALUES (?, ?, ?, ?, ?)').run(
          table,
          rel.geometry.name,
          'gpkg_rtree_index',
          'http://www.geopackage.org/spec120/#extension_rtree',
          'write-only',
        );
      }
      const described = [
        ...rel.columns.filter((c) => c.comment !== null).map((c) => [c.name, c.comment, c.kind === 'json' ? 'application/json' : null] as const),
        ...(rel.geometry?.comment ? [[rel.geometry.name, rel.geometry.comment, null] as const] : []),
      ];
      const dc = db.prepare('INSERT INTO gpkg_data_columns (table_name, column_name, description, mime_type) VALUES (?, ?, ?, ?)');
      for (const [column, description, mime] of described) dc.run(table, column, description, mime);
    },
  };
}

export const gpkg: WriterModule = {
  geometryEncoding: 'wkb',
  needsGeometry: false,
  notStreamable: 'a GeoPackage is an SQLite database, written with random access: name a regular file',
  multiLayer: true,
  open(sink: WriteSink, rels: readonly ExportRelation[]): ExportWriter {
    if (sink.kind !== 'path') throw new Error(`gpkg: ${gpkg.notStreamable}`);
    const db = new Database(sink.path);
    // A file being written from scratch: no rollback journal to keep, and no fsync per batch.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('application_id = 1196444487'); // 'GPKG'
    db.pragma('user_version = 10300'); // GeoPackage 1.3: the newest GDAL 3.6 (Debian 12) reads without a warning
    db.exec(CORE_TABLES);
    const srs = db.prepare('INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)');
    srs.run('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
    srs.run('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
    srs.run('WGS 84 geodetic', 4326, 'EPSG', 4326, WGS84_WKT, 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
    const layers = rels.map((rel) => addLayer(db, rel));
    return {
      layers,
      finish: () => {
        for (const layer of layers) layer.finish();
        if (rels.some((r) => r.columns.some((c) => c.comment !== null) || r.geometry?.comment)) {
          db.prepare('INSERT INTO gpkg_extensions VALUES (?, ?, ?, ?, ?)').run(
            'gpkg_data_columns',
            null,
            'gpkg_schema',
            'http://www.geopackage.org/spec/#extension_schema',
            'read-write',
          );
        }
        db.close();
      },
      abort: () => {
        if (db.open) db.close();
      },
    };
  },
};
