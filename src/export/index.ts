import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Db } from '../db/index.js';
import { ConfigError, errorText } from '../errors.js';
import { describeRelation, streamRelation, type ExportRelation } from './relation.js';
import { EXPORT_FORMATS, FORMAT_EXTENSIONS, type ExportFormat, type WriterModule } from './writer.js';

export { describeRelation, listRelations, type ExportRelation } from './relation.js';
export { EXPORT_FORMATS, type ExportFormat } from './writer.js';

/**
 * Each writer is loaded when its format is asked for: the CLI starts without them, and a machine
 * where better-sqlite3's native module could not be built still runs every other command and format.
 */
const writers: Readonly<Record<ExportFormat, () => Promise<WriterModule>>> = {
  gpkg: async () => {
    try {
      const loaded = await import('./gpkg.js');
      loaded.checkSqlite();
      return loaded.gpkg;
    } catch (error) {
      // better-sqlite3 is native: a platform without a prebuilt binary needs a compiler at install time.
      throw new ConfigError(
        `--format gpkg: better-sqlite3 (the SQLite that writes GeoPackages) could not be loaded: ${errorText(error)}; ` +
          'run `npm rebuild better-sqlite3` where python3, make and a C++ compiler are installed, or export to fgb, parquet or csv',
        'format',
      );
    }
  },
  fgb: async () => (await import('./fgb.js')).fgb,
  parquet: async () => (await import('./parquet.js')).parquet,
  csv: async () => (await import('./csv.js')).csv,
};

export interface ExportOptions {
  /** A table or view of schema efa: `stops` or `efa.stops`. */
  readonly relation: string;
  /** The file to write; replaced when it exists. */
  readonly out: string;
  /** Default: from the extension of `out`. */
  readonly format?: ExportFormat | undefined;
  /** Rows per fetch and per written batch (default 5,000): what the export holds in memory at once. */
  readonly batchSize?: number;
}

export interface ExportSummary {
  readonly relation: string;
  readonly format: ExportFormat;
  readonly out: string;
  readonly rows: number;
  readonly bytes: number;
  readonly durationS: number;
  /** The integer key written (GDAL's FID in a GeoPackage), or undefined when rows were numbered. */
  readonly key: string | undefined;
  readonly geometry: string | undefined;
}

/** The format `--format` names, else the one the extension of `--out` names, else a ConfigError. */
export function exportFormatOf(format: string | undefined, out: string): ExportFormat {
  if (format !== undefined) {
    const f = EXPORT_FORMATS.find((x) => x === format);
    if (!f) throw new ConfigError(`--format: "${format}" is not one of ${EXPORT_FORMATS.join(', ')}`, 'format');
    return f;
  }
  const byExtension = FORMAT_EXTENSIONS[extname(out).toLowerCase()];
  if (!byExtension) {
    throw new ConfigError(
      `--format: not given, and the extension of --out "${out}" names none of ${Object.keys(FORMAT_EXTENSIONS).join(', ')}; pass --format ${EXPORT_FORMATS.join('|')}`,
      'format',
    );
  }
  return byExtension;
}

/**
 * Writes one relation of schema efa to a file, streaming: at most `batchSize` rows are held at
 * once, whatever the size of the relation. The file appears under its name only when complete.
 */
export async function exportRelation(db: Db, opts: ExportOptions): Promise<ExportSummary> {
  const started = performance.now();
  const format = exportFormatOf(opts.format, opts.out);
  const out = resolve(opts.out);
  const dir = dirname(out);
  const dirStat = await stat(dir).catch(() => undefined);
  if (!dirStat?.isDirectory()) throw new ConfigError(`--out: the directory ${dir} does not exist; create it first`, 'out');
  const rel: ExportRelation = await describeRelation(db, opts.relation);
  const module = await writers[format]();
  if (module.needsGeometry && !rel.geometry) {
    throw new ConfigError(
      `--relation: efa.${rel.name} has no geometry column, and ${format} holds features only; use --format gpkg, parquet or csv`,
      'relation',
    );
  }
  // Beside the target, so the final rename stays on one file system; a dot name no tool picks up.
  const tmp = join(dir, `.${basename(out)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const writer = await module.open(tmp, rel);
  let rows: number;
  try {
    rows = await streamRelation(db, rel, module.geometryEncoding, (batch) => writer.write(batch), {
      ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
      onCount: (count) => writer.begin(count),
    });
    await writer.finish();
    await rename(tmp, out);
  } catch (error) {
    await writer.abort();
    await rm(tmp, { force: true });
    throw error;
  }
  const bytes = (await stat(out)).size;
  return {
    relation: `efa.${rel.name}`,
    format,
    out,
    rows,
    bytes,
    durationS: Math.round((performance.now() - started) / 100) / 10,
    key: rel.key,
    geometry: rel.geometry ? `${rel.geometry.name} (${rel.geometry.type}, EPSG:${rel.geometry.srid})` : undefined,
  };
}
