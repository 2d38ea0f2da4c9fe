import { ByteWriter, ParquetWriter, type ColumnSource, type KeyValue, type SchemaElement } from 'hyparquet-writer';
import type { ColumnKind, ExportColumn, ExportRelation, ExportRow } from './relation.js';
import { byteOut } from './sink.js';
import type { WriteSink } from './target.js';
import type { ExportWriter, WriterModule } from './writer.js';

/**
 * GeoParquet 1.1: one row group per fetched batch, the geometry as WKB in a BYTE_ARRAY column, and
 * the `geo` key of the file metadata naming it (encoding WKB, the geometry types seen, the bbox of
 * the data; no `crs`, which GeoParquet defines as OGC:CRS84, longitude/latitude on WGS 84: EPSG:4326
 * in the axis order efa stores). Parquet has no field for a column's description: the comments
 * travel in the `efa_sync:comments` key (a JSON object, column name → comment, and the relation's
 * own under ""). A relation without geometry becomes a plain Parquet file (no `geo` key).
 * A one-dimensional array of a scalar type (mot_types int[], lines text[]) is a Parquet LIST of
 * that type (3-level, as the spec's LogicalTypes.md writes it); other arrays and JSON are JSON text.
 * Parquet is written front to back (the footer last): the bytes go out after each row group, to a
 * file or a stream alike.
 */

const GEOPARQUET_VERSION = '1.1.0';

/** The schema elements of a column: one, or three for a LIST (the column, `list`, `element`). */
function schemaElements(c: ExportColumn): SchemaElement[] {
  if (!c.element) return [schemaElement(c.name, c.kind)];
  return [
    { name: c.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    schemaElement('element', c.element),
  ];
}

function schemaElement(name: string, kind: ColumnKind): SchemaElement {
  const base = { name, repetition_type: 'OPTIONAL' } as const;
  switch (kind) {
    case 'bool':
      return { ...base, type: 'BOOLEAN' };
    case 'int32':
      return { ...base, type: 'INT32' };
    case 'int64':
      return { ...base, type: 'INT64' };
    case 'double':
      return { ...base, type: 'DOUBLE' };
    case 'json':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'JSON' };
    case 'datetime':
      return {
        ...base,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
    case 'binary':
      return { ...base, type: 'BYTE_ARRAY' };
    case 'text':
    case 'date':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
  }
}

/** JSON.parse's reviver with the source text (Node 21+): int8 elements as BigInt, without a detour through a double. */
type Reviver = (key: string, value: unknown, context: { source?: string }) => unknown;
const bigIntElements: Reviver = (_key, value, context) => (typeof value === 'number' && context.source !== undefined ? BigInt(context.source) : value);

/** A value as hyparquet-writer takes it for the column. */
function columnValue(c: ExportColumn, v: unknown): unknown {
  if (v === null || !c.element) return parquetValue(c.kind, v);
  const list = c.element === 'int64' ? (JSON.parse(v as string, bigIntElements as Parameters<typeof JSON.parse>[1]) as unknown) : (JSON.parse(v as string) as unknown);
  if (!Array.isArray(list)) return null;
  // attndims is not enforced: an int[] column may hold a 2-D value, which a list of int cannot.
  if (list.some((e) => Array.isArray(e))) throw new Error(`parquet: ${c.name} holds a multi-dimensional array, which a Parquet list of ${c.element} cannot hold; export it with --format csv or gpkg (JSON text)`);
  return c.element === 'int64' || c.element === 'bool' || c.element === 'int32' || c.element === 'double' ? list : list.map((e) => (e === null ? null : String(e)));
}

/** A value as hyparquet-writer takes it for the column's schema element. */
function parquetValue(kind: ColumnKind, v: unknown): unknown {
  if (v === null) return null;
  switch (kind) {
    case 'int64':
      return BigInt(v as string);
    case 'datetime':
      return new Date(v as string);
    case 'json':
      // The JSON column type serialises what it is given: the parsed value, not its text.
      return JSON.parse(v as string) as unknown;
    default:
      return v;
  }
}

export const parquet: WriterModule = {
  geometryEncoding: 'wkb',
  needsGeometry: false,
  notStreamable: undefined,
  multiLayer: false,
  open(sink: WriteSink, rels: readonly ExportRelation[]): ExportWriter {
    const rel = rels[0];
    if (!rel) throw new Error('parquet: no relation to write');
    const geometryName = rel.geometry?.name;
    const schema: SchemaElement[] = [
      { name: 'root', num_children: rel.columns.length + (geometryName ? 1 : 0) },
      ...rel.columns.flatMap(schemaElements),
      ...(geometryName ? [{ name: geometryName, type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' } satisfies SchemaElement] : []),
    ];
    const comments: Record<string, string> = {};
    if (rel.comment) comments[''] = rel.comment;
    for (const c of rel.columns) if (c.comment) comments[c.name] = c.comment;
    if (rel.geometry?.comment && geometryName) comments[geometryName] = rel.geometry.comment;
    const kvMetadata: KeyValue[] = [{ key: 'efa_sync:comments', value: JSON.stringify(comments) }];
    const out = byteOut(sink);
    const bytes = new ByteWriter();
    const writer = new ParquetWriter({ writer: bytes, schema, kvMetadata, createdBy: 'efa-sync export' });
    // What the writer has encoded so far goes out, and its buffer starts again (its offset counts on).
    const drain = async (): Promise<void> => {
      if (bytes.index === 0) return;
      const chunk = Buffer.from(new Uint8Array(bytes.buffer, 0, bytes.index));
      bytes.index = 0;
      await out.put(chunk);
    };
    const bbox = [Infinity, Infinity, -Infinity, -Infinity];
    const types = new Set<string>();

    const layer = {
      begin: () => undefined,
      write: async (rows: readonly ExportRow[]) => {
        if (rows.length === 0) return;
        const columnData: ColumnSource[] = rel.columns.map((c, i) => ({
          name: c.name,
          data: rows.map((r) => columnValue(c, r.values[i] ?? null)),
        }));
        if (geometryName) {
          columnData.push({ name: geometryName, data: rows.map((r) => (r.geometry instanceof Uint8Array ? r.geometry : null)) });
          for (const r of rows) {
            if (!r.bbox) continue;
            bbox[0] = Math.min(bbox[0] ?? Infinity, r.bbox[0]);
            bbox[1] = Math.min(bbox[1] ?? Infinity, r.bbox[1]);
            bbox[2] = Math.max(bbox[2] ?? -Infinity, r.bbox[2]);
            bbox[3] = Math.max(bbox[3] ?? -Infinity, r.bbox[3]);
            if (r.geometryType) types.add(r.geometryType);
          }
        }
        // One row group per batch: the writer holds one batch, never the relation.
        writer.write({ columnData, rowGroupSize: rows.length });
        await drain();
      },
    };
    return {
      layers: [layer],
      finish: async () => {
        if (geometryName) {
          const geo = {
            version: GEOPARQUET_VERSION,
            primary_column: geometryName,
            columns: {
              [geometryName]: {
                encoding: 'WKB',
                geometry_types: [...types].sort(),
                ...(Number.isFinite(bbox[0]) ? { bbox } : {}),
              },
            },
          };
          // The bbox and the types are known only after the last row: the footer is written last.
          writer.kvMetadata = [{ key: 'geo', value: JSON.stringify(geo) }, ...kvMetadata];
        }
        writer.finish();
        await drain();
        await out.end();
      },
      abort: () => out.destroy(),
    };
  },
};
