import { Option, type Command } from 'commander';
import { dbUrlFrom, openDb } from '../db/index.js';
import { LockedError } from '../db/lock.js';
import { ConfigError, errorText } from '../errors.js';
import { EXPORT_FORMATS, exportFormatOf, exportRelations, parseExportBbox, precheckWhere, type ExportFormat } from '../export/index.js';
import { addDbOption, addOutputOptions, commonOption, defaultStatementTimeoutS, loggerFor, positiveNumber, type CommonOptions } from './common.js';
import { exportDbOptions, stopExportOnSignal } from './export-stop.js';
import { whenDatabaseLost } from './database.js';
import { addLakeOption, isLakeExport, runLakeExport } from './lake.js';

/** The environment variables behind export's own options (the project's option-env convention). */
export const EXPORT_OPTION_ENV = {
  csvRaw: 'EFA_CSV_RAW',
} as const;

interface ExportCliOptions extends CommonOptions {
  relation?: string[];
  out: string;
  format?: ExportFormat;
  batchSize?: number;
  where?: string;
  bbox?: string;
  csvRaw?: boolean;
  statementTimeout?: number;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * `efa-sync serve` holds the embedded database (PGlite is one process at a time): the export can
 * go through the server instead, as any PostgreSQL client would. The holder's command line is in
 * the lock file, which the LockedError quotes: its port, or serve's default.
 */
function throughServe(error: unknown): unknown {
  if (!(error instanceof LockedError) || !/ in use by [^(]*\bserve\b/.test(error.message)) return error;
  const given = /--port[= ](\d+)/.exec(error.message)?.[1] ?? '5433';
  // --port 0 lets the system choose: serve printed the port it got.
  const port = given === '0' ? '<the port serve printed>' : given;
  return new LockedError(
    `${error.message}. Export through the server instead: --db "postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable" ` +
      '(with the password serve asks for in PGPASSWORD, if any), or stop serve first',
  );
}

/** `efa-sync export`: tables or views of schema efa to a file, for people without PostGIS. */
export function registerExport(program: Command): void {
  const cmd = program
    .command('export')
    .description('write tables or views of schema efa to a GeoPackage, FlatGeobuf, GeoParquet or CSV file (or standard output), streaming')
    .option('--relation <name>', 'a table or view of schema efa (stops, current_stops, efa.operating_areas, …); repeat it for several layers in one GeoPackage', collect)
    .requiredOption('--out <file>', 'the file to write (replaced when complete; a device, FIFO or - for standard output is written in place, csv/fgb/parquet only)')
    .addOption(new Option('--format <format>', 'file format (default: from the extension of --out)').choices([...EXPORT_FORMATS]))
    .option('--where <condition>', "only the rows where this SQL condition holds, e.g. \"name ILIKE '%bahnhof%'\" (columns, constants, operators and plain functions only)")
    .option('--bbox <minLon,minLat,maxLon,maxLat>', 'only the rows whose geometry intersects this box (EPSG:4326, uses the spatial index)')
    .addOption(new Option('--csv-raw', "csv: write text cells starting with = + - @ as they are (default: prefixed with ' against formula injection)").env(EXPORT_OPTION_ENV.csvRaw))
    .addOption(new Option('--batch-size <rows>', 'rows fetched and written at a time: what is held in memory').argParser(positiveNumber('--batch-size')).default(5_000));
  cmd.addOption(commonOption('statementTimeout', `PostgreSQL: cancel an export statement that takes longer, in seconds (0 = no limit; default ${defaultStatementTimeoutS})`));
  addOutputOptions(addDbOption(addLakeOption(cmd))).action(async (opts: ExportCliOptions) => {
    if (isLakeExport(opts)) return runLakeExport(opts);
    const log = loggerFor(opts);
    const relations = opts.relation ?? [];
    if (relations.length === 0) {
      throw new ConfigError("--relation: required to export one relation to a file (or give --lake <dir> to write the lake); name a table or view of schema efa (efa-sync export --relation current_stops --out stops.gpkg)", 'relation');
    }
    // A bad format, extension or box is told before a database is opened (PGlite takes seconds to start).
    const format = exportFormatOf(opts.format, opts.out);
    const bbox = opts.bbox === undefined ? undefined : parseExportBbox(opts.bbox);
    if (opts.where !== undefined) await precheckWhere(opts.where);
    // No migration: an analyst's read-only role exports from a schema it cannot change.
    const db = await openDb(dbUrlFrom(opts.db), exportDbOptions(opts)).catch((e: unknown) => {
      throw throughServe(e);
    });
    const disposeSignals = stopExportOnSignal(db, log, 'the export');
    try {
      const summary = await whenDatabaseLost(db, undefined, () =>
        exportRelations(db, {
          relations,
          out: opts.out,
          format,
          where: opts.where,
          bbox,
          csvRaw: opts.csvRaw === true,
          onWarning: (message) => log.warn(message),
          ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
        }),
      );
      // With --out -, standard output carries the file: the summary goes to standard error.
      if (opts.json) (opts.out === '-' ? process.stderr : process.stdout).write(`${JSON.stringify(summary)}\n`);
      else
        log.info(
          `exported ${summary.rows} rows of ${summary.relation} to ${summary.out} (${summary.format}${summary.bytes === undefined ? '' : `, ${Math.ceil(summary.bytes / 1024)} KiB`}) in ${summary.durationS}s` +
            `${summary.geometry ? `; geometry ${summary.geometry}` : '; no geometry'}${summary.key ? `; key ${summary.key}` : ''}`,
        );
    } finally {
      disposeSignals();
      await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
    }
  });
}
