import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import * as flatbuffers from 'flatbuffers';
import type { Geometry as GeoJsonGeometry, GeometryCollection } from 'geojson';
import { ColumnType } from 'flatgeobuf/lib/mjs/flat-geobuf/column-type.js';
import { Column } from 'flatgeobuf/lib/mjs/flat-geobuf/column.js';
import { Crs } from 'flatgeobuf/lib/mjs/flat-geobuf/crs.js';
import { Feature } from 'flatgeobuf/lib/mjs/flat-geobuf/feature.js';
import { GeometryType } from 'flatgeobuf/lib/mjs/flat-geobuf/geometry-type.js';
import { Header } from 'flatgeobuf/lib/mjs/flat-geobuf/header.js';
import { buildGeometry } from 'flatgeobuf/lib/mjs/generic/geometry.js';
import { parseGC, parseGeometry } from 'flatgeobuf/lib/mjs/geojson/geometry.js';
import type { ColumnKind, ExportColumn, ExportRelation, ExportRow } from './relation.js';
import type { ExportWriter, WriterModule } from './writer.js';

/**
 * FlatGeobuf (v3), streamed: the magic bytes, a header with the feature count (known from the
 * export's snapshot before the first row), then one size-prefixed feature per row. No spatial
 * index: it needs every feature before the first is written, which streaming cannot give.
 *
 * The `flatgeobuf` package's own `serialize` takes the whole collection in memory, and its header
 * builder drops column descriptions, the layer name and the CRS's organisation; so the header and
 * the properties are built here on the package's generated FlatBuffers tables (Header, Column,
 * Crs, Feature), and geometries with its GeoJSON parser and geometry builder.
 */

const MAGIC = new Uint8Array([0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x00]);

const columnTypes: Record<ColumnKind, ColumnType> = {
  bool: ColumnType.Bool,
  int32: ColumnType.Int,
  int64: ColumnType.Long,
  double: ColumnType.Double,
  text: ColumnType.String,
  json: ColumnType.Json,
  datetime: ColumnType.DateTime,
  date: ColumnType.DateTime,
  binary: ColumnType.Binary,
};

const geometryTypes: Record<string, GeometryType> = {
  Point: GeometryType.Point,
  LineString: GeometryType.LineString,
  Polygon: GeometryType.Polygon,
  MultiPoint: GeometryType.MultiPoint,
  MultiLineString: GeometryType.MultiLineString,
  MultiPolygon: GeometryType.MultiPolygon,
  GeometryCollection: GeometryType.GeometryCollection,
};

function buildHeader(rel: ExportRelation, count: number): Uint8Array {
  const b = new flatbuffers.Builder(1024);
  const optional = (s: string | null | undefined): number => (s ? b.createString(s) : 0);
  const columns = rel.columns.map((c: ExportColumn) => {
    const name = b.createString(c.name);
    const description = optional(c.comment);
    Column.startColumn(b);
    Column.addName(b, name);
    Column.addType(b, columnTypes[c.kind]);
    if (description) Column.addDescription(b, description);
    Column.addNullable(b, !c.notNull);
    if (c.name === rel.key) {
      Column.addPrimaryKey(b, true);
      Column.addUnique(b, true);
    }
    return Column.endColumn(b);
  });
  const columnsVector = Header.createColumnsVector(b, columns);
  const name = b.createString(rel.name);
  const description = optional(rel.comment);
  const org = b.createString('EPSG');
  Crs.startCrs(b);
  Crs.addOrg(b, org);
  Crs.addCode(b, rel.geometry?.srid ?? 4326);
  const crs = Crs.endCrs(b);
  Header.startHeader(b);
  Header.addName(b, name);
  if (description) Header.addDescription(b, description);
  Header.addGeometryType(b, geometryTypes[rel.geometry?.type ?? ''] ?? GeometryType.Unknown);
  Header.addColumns(b, columnsVector);
  Header.addFeaturesCount(b, BigInt(count));
  Header.addIndexNodeSize(b, 0);
  Header.addCrs(b, crs);
  b.finishSizePrefixed(Header.endHeader(b));
  return b.asUint8Array();
}

const encoder = new TextEncoder();

/** The property buffer of one feature: per non-null value, its column index (uint16) and its bytes. */
function encodeProperties(columns: readonly ExportColumn[], values: readonly unknown[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const push = (bytes: Uint8Array): void => {
    parts.push(bytes);
    size += bytes.length;
  };
  const fixed = (n: number, set: (v: DataView) => void): void => {
    const bytes = new Uint8Array(n);
    set(new DataView(bytes.buffer));
    push(bytes);
  };
  const withLength = (data: Uint8Array): void => {
    fixed(4, (v) => v.setUint32(0, data.length, true));
    push(data);
  };
  columns.forEach((c, i) => {
    const value = values[i];
    if (value === null || value === undefined) return;
    fixed(2, (v) => v.setUint16(0, i, true));
    switch (c.kind) {
      case 'bool':
        return fixed(1, (v) => v.setUint8(0, value ? 1 : 0));
      case 'int32':
        return fixed(4, (v) => v.setInt32(0, Number(value), true));
      case 'int64':
        return fixed(8, (v) => v.setBigInt64(0, BigInt(value as string), true));
      case 'double':
        return fixed(8, (v) => v.setFloat64(0, Number(value), true));
      case 'binary':
        return withLength(value as Uint8Array);
      default:
        return withLength(encoder.encode(String(value)));
    }
  });
  const out = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function buildFeature(rel: ExportRelation, row: ExportRow): Uint8Array {
  const b = new flatbuffers.Builder(256);
  const properties = encodeProperties(rel.columns, row.values);
  const propertiesOffset = properties.length > 0 ? Feature.createPropertiesVector(b, properties) : 0;
  let geometryOffset = 0;
  if (typeof row.geometry === 'string') {
    const geojson = JSON.parse(row.geometry) as GeoJsonGeometry;
    const parsed = geojson.type === 'GeometryCollection' ? parseGC(geojson as GeometryCollection) : parseGeometry(geojson);
    geometryOffset = buildGeometry(b, parsed);
  }
  Feature.startFeature(b);
  if (geometryOffset) Feature.addGeometry(b, geometryOffset);
  if (propertiesOffset) Feature.addProperties(b, propertiesOffset);
  b.finishSizePrefixed(Feature.endFeature(b));
  return b.asUint8Array();
}

async function writeChunk(out: WriteStream, chunk: Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

export const fgb: WriterModule = {
  geometryEncoding: 'geojson',
  needsGeometry: true,
  open(path: string, rel: ExportRelation): ExportWriter {
    const out = createWriteStream(path);
    const failed = new Promise<never>((_, reject) => out.once('error', reject));
    failed.catch(() => undefined);
    return {
      begin: (count) => Promise.race([writeChunk(out, fgbHeader(rel, count)), failed]),
      write: async (rows) => {
        const features = rows.map((r) => buildFeature(rel, r));
        await Promise.race([writeChunk(out, Buffer.concat(features)), failed]);
      },
      finish: async () => {
        out.end();
        await Promise.race([once(out, 'finish'), failed]);
      },
      abort: () => {
        out.destroy();
      },
    };
  },
};

/** Magic bytes and header; the count is known once the export's snapshot is taken, before the first row. */
function fgbHeader(rel: ExportRelation, count: number): Uint8Array {
  const header = buildHeader(rel, count);
  const out = new Uint8Array(MAGIC.length + header.length);
  out.set(MAGIC);
  out.set(header, MAGIC.length);
  return out;
}
