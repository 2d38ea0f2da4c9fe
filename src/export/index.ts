import { stat } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import type { Db } from '../db/index.js';
import { ConfigError, errorText } from '../errors.js';
import type { BBox } from '../tiling/types.js';
import { describeRelation, type ExportRelation } from './relation.js';
import { streamRelations } from './stream.js';
import { prepareTarget, resolveOutTarget } from './target.js';
import { checkedWhere } from './where.js';
import { EXPORT_FORMATS, FORMAT_EXTENSIONS, type ExportFormat, type WriterModule } from './writer.js';
import { failpoint } from '../util/failpoint.js';

export { describeRelation, listRelations, type ExportRelation } from './relation.js';
export { EXPORT_FORMATS, type ExportFormat } from './writer.js';
export { removePendingTemps } from './target.js';

/**
 * How to rebuild better-sqlite3 for the Node that runs this: against its own headers (the prefix two
 * levels above the binary holds include/node, for a distribution's Node as for the registry's `node`
 * package), whatever an npmrc's `nodedir` says.
 */
export function sqliteRebuildHint(execPath = process.execPath, abi = process.versions.modules): string {
  const prefix = nodeHeadersDir(dirname(dirname(execPath)));
  return (
    `rebuild it for this Node (${process.version}, ABI ${abi}) where python3, make and a C++ compiler are installed: ` +
    `\`npm rebuild better-sqlite3 --nodedir=${prefix}\` (a \`nodedir\` in your npmrc that names another Node's headers builds it for the wrong ABI; \`npm config get nodedir\` shows it)`
  );
}

/**
 * The directory holding include/node for a Node installed under `prefix`: the prefix itself (a
 * distribution's or nodejs.org's Node), or the platform package beside the registry's `node` package
 * (node_modules/node-<platform>), whose bin/node is a copy, not a link to follow.
 */
function nodeHeadersDir(prefix: string): string {
  const has = (dir: string): boolean => existsSync(join(dir, 'include', 'node', 'node_version.h'));
  if (has(prefix)) return prefix;
  const platforms = join(prefix, 'node_modules');
  const found = existsSync(platforms) ? readdirSync(platforms).filter((d) => d.startsWith('node-')).map((d) => join(platforms, d)).find(has) : undefined;
  return found ?? prefix;
}

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
      // better-sqlite3 is native: a platform without a prebuilt binary needs a compiler at install time,
      // and an npmrc `nodedir` naming another Node's headers builds it for that Node's ABI, which a plain
      // `npm rebuild` repeats: the rebuild must name this Node's headers.
      throw new ConfigError(
        `--format gpkg: better-sqlite3 (the SQLite that writes GeoPackages) could not be loaded: ${errorText(error)}; ${sqliteRebuildHint()}, or export to fgb, parquet or csv`,
        'format',
      );
    }
  },
  fgb: async () => (await import('./fgb.js')).fgb,
  parquet: async () => (await import('./parquet.js')).parquet,
  csv: async () => (await import('./csv.js')).csv,
};

export interface ExportOptions {
  /** Tables or views of schema efa: `stops` or `efa.stops`; several only into a GeoPackage (one layer each). */
  readonly relations: readonly string[];
  /** The file to write (see target.ts for devices, FIFOs, links), or `-` for standard output. */
  readonly out: string;
  /** Default: from the extension of `out`. */
  readonly format?: ExportFormat | undefined;
  /** Rows per fetch and per written batch (default 5,000): what the export holds in memory at once. */
  readonly batchSize?: number;
  /** A row condition in SQL, checked on its parse tree (where.ts). */
  readonly where?: string | undefined;
  /** [minLon, minLat, maxLon, maxLat]: the rows whose geometry intersects it. */
  readonly bbox?: BBox | undefined;
  /** CSV: write formula-like text cells as they are. */
  readonly csvRaw?: boolean;
  readonly onWarning?: (message: string) => void;
}

export interface ExportLayerSummary {
  readonly relation: string;
  readonly rows: number;
  /** The integer key written (GDAL's FID in a GeoPackage), or undefined when rows were numbered. */
  readonly key: string | undefined;
  readonly geometry: string | undefined;
}

export interface ExportSummary extends ExportLayerSummary {
  readonly format: ExportFormat;
  readonly out: string;
  /** Bytes of the file; undefined for standard output, a device or a FIFO. */
  readonly bytes: number | undefined;
  readonly durationS: number;
  /** One per relation, in the order given (the fields above are the first's, rows their sum). */
  readonly layers: readonly ExportLayerSummary[];
}

/** The format `--format` names, else the one the extension of `--out` names, else a ConfigError. */
export function exportFormatOf(format: string | undefined, out: string): ExportFormat {
  if (format !== undefined) {
    const f = EXPORT_FORMATS.find((x) => x === format);
    if (!f) throw new ConfigError(`--format: "${format}" is not one of ${EXPORT_FORMATS.join(', ')}`, 'format');
    return f;
  }
  if (out === '-') throw new ConfigError('--format: required with --out - (standard output has no extension): csv, fgb or parquet', 'format');
  const byExtension = FORMAT_EXTENSIONS[extname(out).toLowerCase()];
  if (!byExtension) {
    throw new ConfigError(
      `--format: not given, and the extension of --out "${out}" names none of ${Object.keys(FORMAT_EXTENSIONS).join(', ')}; pass --format ${EXPORT_FORMATS.join('|')}`,
      'format',
    );
  }
  return byExtension;
}

/** Checks a --where condition's form before any database is opened (the columns are checked later, per relation). */
export async function precheckWhere(condition: string): Promise<void> {
  const { loadModule, parseSync } = await import('libpg-query');
  await loadModule();
  checkedWhere(condition, undefined, parseSync);
}

/** `--bbox minLon,minLat,maxLon,maxLat`: four numbers in range, min below max. */
export function parseExportBbox(text: string): BBox {
  const parts = text.split(',').map((p) => p.trim());
  const n = parts.map(Number);
  const [x0 = NaN, y0 = NaN, x1 = NaN, y1 = NaN] = n;
  if (parts.length !== 4 || parts.some((p) => p === '') || n.some((v) => !Number.isFinite(v))) {
    throw new ConfigError(`--bbox: expected minLon,minLat,maxLon,maxLat (four numbers), got "${text}"`, 'bbox');
  }
  if (x0 < -180 || x1 > 180 || y0 < -90 || y1 > 90) throw new ConfigError(`--bbox: longitudes lie in -180..180 and latitudes in -90..90, got "${text}"`, 'bbox');
  if (!(x0 < x1 && y0 < y1)) throw new ConfigError(`--bbox: the minimum must be below the maximum (minLon,minLat,maxLon,maxLat), got "${text}"`, 'bbox');
  return [x0, y0, x1, y1];
}

const describe = (rel: ExportRelation): string | undefined =>
  rel.geometry
    ? `${rel.geometry.name} (${rel.geometry.type}, EPSG:${rel.geometry.srid}${rel.geometry.sourceSrid !== 0 && rel.geometry.sourceSrid !== 4326 ? `, transformed from EPSG:${rel.geometry.sourceSrid}` : ''})`
    : undefined;

/**
 * Writes relations of schema efa to a file, streaming: at most `batchSize` rows are held at once,
 * whatever the size of a relation. A file appears under its name only when complete.
 */
export async function exportRelations(db: Db, opts: ExportOptions): Promise<ExportSummary> {
  const started = performance.now();
  const format = exportFormatOf(opts.format, opts.out);
  if (opts.relations.length === 0) throw new ConfigError('--relation: name at least one table or view of schema efa', 'relation');
  const module = await writers[format]();
  if (opts.relations.length > 1 && !module.multiLayer) {
    throw new ConfigError(`--relation: given ${opts.relations.length} times, but a ${format} file holds one relation; use --format gpkg (one layer each), or one export per relation`, 'relation');
  }
  const target = await resolveOutTarget(opts.out);
  if (target.kind !== 'file' && module.notStreamable) {
    throw new ConfigError(`--out ${target.shown}: not a regular file, and --format ${format} cannot be streamed (${module.notStreamable}); csv, fgb and parquet can`, 'out');
  }
  const rels: ExportRelation[] = [];
  for (const name of opts.relations) {
    const rel = await describeRelation(db, name);
    if (rels.some((r) => r.name === rel.name)) throw new ConfigError(`--relation: efa.${rel.name} given twice`, 'relation');
    if (module.needsGeometry && !rel.geometry) {
      throw new ConfigError(`--relation: efa.${rel.name} has no geometry column, and ${format} holds features only; use --format gpkg, parquet or csv`, 'relation');
    }
    if (opts.bbox && !rel.geometry) throw new ConfigError(`--bbox: efa.${rel.name} has no geometry column to select by`, 'bbox');
    rels.push(rel);
  }
  let where: string[] | undefined;
  if (opts.where !== undefined) {
    const { loadModule, parseSync } = await import('libpg-query');
    await loadModule();
    const condition = opts.where;
    where = rels.map((rel) => checkedWhere(condition, rel, parseSync));
  }
  const prepared = await prepareTarget(target);
  const warn = opts.onWarning ?? ((): void => undefined);
  let rows: number[];
  try {
    const writer = await module.open(prepared.sink, rels, { csvRaw: opts.csvRaw === true, onWarning: warn });
    try {
      rows = await streamRelations(
        db,
        rels.map((rel, i) => ({
          rel,
          encoding: module.geometryEncoding,
          where: where?.[i],
          onCount: (count: number) => writer.layers[i]?.begin(count),
          onBatch: async (batch) => {
            await writer.layers[i]?.write(batch);
            failpoint('export-batch');
          },
        })),
        { ...(opts.batchSize ? { batchSize: opts.batchSize } : {}), filter: { bbox: opts.bbox }, onWarning: warn },
      );
      await writer.finish();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    await prepared.commit();
  } catch (error) {
    await prepared.discard();
    throw error;
  }
  const layers = rels.map((rel, i) => ({ relation: `efa.${rel.name}`, rows: rows[i] ?? 0, key: rel.key, geometry: describe(rel) }));
  const first = layers[0];
  return {
    relation: layers.map((l) => l.relation).join(', '),
    format,
    out: target.shown,
    rows: rows.reduce((a, b) => a + b, 0),
    bytes: target.kind === 'file' ? (await stat(target.path)).size : undefined,
    durationS: Math.round((performance.now() - started) / 100) / 10,
    key: first?.key,
    geometry: first?.geometry,
    layers,
  };
}

/** One relation: what `exportRelations` does with a single name. */
export function exportRelation(db: Db, opts: Omit<ExportOptions, 'relations'> & { readonly relation: string }): Promise<ExportSummary> {
  const { relation, ...rest } = opts;
  return exportRelations(db, { ...rest, relations: [relation] });
}
