import type { ExportRelation, ExportRow, GeometryEncoding } from './relation.js';

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

/**
 * One file being written, batch after batch. The writer writes to `path` (a temporary name the
 * command renames to `--out` once `finish` returned), so a failed export never leaves a half file
 * under the name the user asked for.
 */
export interface ExportWriter {
  /** Called once before the rows, with the number of rows that follow. */
  begin(count: number): Promise<void> | void;
  write(rows: readonly ExportRow[]): Promise<void> | void;
  finish(): Promise<void> | void;
  /** Releases what the writer holds after a failure (the temporary file is removed by the caller). */
  abort(): Promise<void> | void;
}

export interface WriterModule {
  /** What the writer needs of each row's geometry. */
  readonly geometryEncoding: GeometryEncoding;
  /** Whether the format can hold a relation without geometry. */
  readonly needsGeometry: boolean;
  open(path: string, rel: ExportRelation): Promise<ExportWriter> | ExportWriter;
}
