import type { ExportRelation, ExportRow, GeometryEncoding } from './relation.js';
import type { WriteSink } from './target.js';

export const EXPORT_FORMATS = ['gpkg', 'fgb', 'parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The file extension each format is known by, for `--out` without `--format`. */
export const FORMAT_EXTENSIONS: Readonly<Record<string, ExportFormat>> = {
  '.gpkg': 'gpkg',
  '.fgb': 'fgb',
  '.parquet': 'parquet',
  '.geoparquet': 'parquet',
  '.csv': 'csv',
};

/** One relation being written (a layer of the file), batch after batch. */
export interface LayerWriter {
  /** Called once before the rows, with the number of rows that follow. */
  begin(count: number): Promise<void> | void;
  write(rows: readonly ExportRow[]): Promise<void> | void;
}

/**
 * One file being written. A writer given a path writes a temporary file the command renames to
 * `--out` once `finish` returned, so a failed export never leaves a half file under the name the
 * user asked for; given a stream (standard output, a device, a FIFO) it writes its bytes in order.
 */
export interface ExportWriter {
  /** One per relation, in the order given. */
  readonly layers: readonly LayerWriter[];
  finish(): Promise<void> | void;
  /** Releases what the writer holds after a failure (the temporary file is removed by the caller). */
  abort(): Promise<void> | void;
}

export interface WriterOptions {
  /** CSV: write text cells as they are, formula-like ones included. */
  readonly csvRaw?: boolean;
  /** What the file holds other than the user may expect (a FlatGeobuf without index, cells neutralised). */
  readonly onWarning?: (message: string) => void;
}

export interface WriterModule {
  /** What the writer needs of each row's geometry. */
  readonly geometryEncoding: GeometryEncoding;
  /** Whether the format can hold a relation without geometry. */
  readonly needsGeometry: boolean;
  /** Why the format cannot be written to a stream (bytes in order, never revisited); undefined when it can. */
  readonly notStreamable: string | undefined;
  /** Whether one file holds several relations, one layer each. */
  readonly multiLayer: boolean;
  open(sink: WriteSink, rels: readonly ExportRelation[], options: WriterOptions): Promise<ExportWriter> | ExportWriter;
}
