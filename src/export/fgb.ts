import { open as openFile, rm } from 'node:fs/promises';
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
import { buildTree, extentOf, hilbertOrder, INDEX_NODE_SIZE } from './fgb-index.js';
import type { ColumnKind, ExportColumn, ExportRelation, ExportRow } from './relation.js';
import { byteOut, type ByteOut } from './sink.js';
import { holdTemp, type WriteSink } from './target.js';
import type { ExportWriter, WriterModule, WriterOptions } from './writer.js';

/**
 * FlatGeobuf (v3): the magic bytes, a header with the feature count (known from the export's
 * snapshot before the first row), the packed Hilbert R-tree, then one size-prefixed feature per row.
 * Written to a file, the features go to a side file first (memory holds only their boxes: 40 bytes
 * each); the tree and the features in Hilbert order follow once the last has come. Written to a
 * stream (standard output, a FIFO), and whenever a feature has no geometry (GDAL refuses those in
 * an indexed file, as the spec's tree has no place for them), the file has no index: the features
 * in the order read, as they come.
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

interface HeaderIndex {
  readonly nodeSize: number;
  readonly envelope: readonly number[] | undefined;
}

function buildHeader(rel: ExportRelation, count: number, index: HeaderIndex): Uint8Array {
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
  const envelope = index.envelope ? Header.createEnvelopeVector(b, [...index.envelope]) : 0;
  Header.startHeader(b);
  if (envelope) Header.addEnvelope(b, envelope);
  Header.addName(b, name);
  if (description) Header.addDescription(b, description);
  Header.addGeometryType(b, geometryTypes[rel.geometry?.type ?? ''] ?? GeometryType.Unknown);
  Header.addColumns(b, columnsVector);
  Header.addFeaturesCount(b, BigInt(count));
  Header.addIndexNodeSize(b, index.nodeSize);
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

/** Magic bytes and header. */
function fgbHeader(rel: ExportRelation, count: number, index: HeaderIndex): Uint8Array {
  const header = buildHeader(rel, count, index);
  const out = new Uint8Array(MAGIC.length + header.length);
  out.set(MAGIC);
  out.set(header, MAGIC.length);
  return out;
}

/** Features as they come, after a header without index: what a stream can take. */
function streamingLayer(rel: ExportRelation, out: ByteOut): ExportWriter {
  return {
    layers: [
      {
        begin: (count) => out.put(fgbHeader(rel, count, { nodeSize: 0, envelope: undefined })),
        write: (rows) => out.put(Buffer.concat(rows.map((r) => buildFeature(rel, r)))),
      },
    ],
    finish: () => out.end(),
    abort: () => out.destroy(),
  };
}

/** Features to a side file, then header, tree and features in Hilbert order to the file. */
function indexedLayer(rel: ExportRelation, path: string, options: WriterOptions): ExportWriter {
  const sidePath = `${path}.features`;
  const release = holdTemp(sidePath);
  const side = byteOut({ kind: 'path', path: sidePath });
  let count = 0;
  let boxes = new Float64Array(4 * 1024);
  let sizes = new Uint32Array(1024);
  let withoutGeometry = 0;
  let declared = 0;
  const remember = (row: ExportRow, size: number): void => {
    if (count === sizes.length) {
      const grownBoxes = new Float64Array(boxes.length * 2);
      grownBoxes.set(boxes);
      boxes = grownBoxes;
      const grownSizes = new Uint32Array(sizes.length * 2);
      grownSizes.set(sizes);
      sizes = grownSizes;
    }
    if (row.bbox) boxes.set(row.bbox, count * 4);
    else withoutGeometry++;
    sizes[count++] = size;
  };
  const finish = async (): Promise<void> => {
    await side.end();
    const out = byteOut({ kind: 'path', path });
    const reader = await openFile(sidePath, 'r');
    try {
      if (count !== declared) throw new Error(`fgb: ${count} features written, the header says ${declared}`);
      if (withoutGeometry > 0 || count === 0) {
        if (withoutGeometry > 0) {
          options.onWarning?.(`fgb: ${withoutGeometry} feature(s) of efa.${rel.name} have no geometry, which a FlatGeobuf spatial index cannot hold: written without one`);
        }
        await out.put(fgbHeader(rel, count, { nodeSize: 0, envelope: undefined }));
        for await (const chunk of reader.createReadStream({ autoClose: false })) await out.put(chunk as Buffer);
      } else {
        const features = { boxes, count };
        const order = hilbertOrder(features);
        const starts = new Float64Array(count);
        for (let i = 1; i < count; i++) starts[i] = (starts[i - 1] ?? 0) + (sizes[i - 1] ?? 0);
        const offsets = new Float64Array(count);
        for (let k = 1; k < count; k++) offsets[k] = (offsets[k - 1] ?? 0) + (sizes[order[k - 1] ?? 0] ?? 0);
        await out.put(fgbHeader(rel, count, { nodeSize: INDEX_NODE_SIZE, envelope: extentOf(features) }));
        await out.put(buildTree(features, order, offsets));
        // Read in Hilbert order (random places of the side file), written out about 1 MB at a time.
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        for (let k = 0; k < count; k++) {
          const i = order[k] ?? 0;
          const buffer = Buffer.allocUnsafe(sizes[i] ?? 0);
          await reader.read(buffer, 0, buffer.length, starts[i] ?? 0);
          pending.push(buffer);
          pendingBytes += buffer.length;
          if (pendingBytes >= 1 << 20 || k === count - 1) {
            await out.put(Buffer.concat(pending, pendingBytes));
            pending = [];
            pendingBytes = 0;
          }
        }
      }
      await out.end();
    } finally {
      await reader.close();
      await rm(sidePath, { force: true });
      release();
    }
  };
  return {
    layers: [
      {
        begin: (n) => {
          declared = n;
        },
        write: async (rows) => {
          const features = rows.map((r) => {
            const feature = buildFeature(rel, r);
            remember(r, feature.length);
            return feature;
          });
          await side.put(Buffer.concat(features));
        },
      },
    ],
    finish,
    abort: async () => {
      side.destroy();
      await rm(sidePath, { force: true });
      release();
    },
  };
}

export const fgb: WriterModule = {
  geometryEncoding: 'geojson',
  needsGeometry: true,
  notStreamable: undefined,
  multiLayer: false,
  open(sink: WriteSink, rels: readonly ExportRelation[], options: WriterOptions): ExportWriter {
    const rel = rels[0];
    if (!rel) throw new Error('fgb: no relation to write');
    if (sink.kind === 'stream') {
      options.onWarning?.(`fgb: written to ${sink.name} as it is read, without a spatial index (the index needs every feature before the first)`);
      return streamingLayer(rel, byteOut(sink));
    }
    return indexedLayer(rel, sink.path, options);
  },
};
