import { Option, type Command } from 'commander';
import { dbUrlFrom, openDb } from '../db/index.js';
import { errorText } from '../errors.js';
import { EXPORT_FORMATS, exportFormatOf, exportRelation, type ExportFormat } from '../export/index.js';
import { addDbOption, addOutputOptions, loggerFor, positiveNumber, whenDatabaseLost, type CommonOptions } from './common.js';
import { addLakeOption, isLakeExport, runLakeExport } from './lake.js';

interface ExportCliOptions extends CommonOptions {
  relation: string;
  out: string;
  format?: ExportFormat;
  batchSize?: number;
}

/** `efa-sync export`: one table or view of schema efa to a file, for people without PostGIS. */
export function registerExport(program: Command): void {
  const cmd = program
    .command('export')
    .description('write one table or view of schema efa to a GeoPackage, FlatGeobuf, GeoParquet or CSV file, streaming')
    .requiredOption('--relation <name>', 'a table or view of schema efa (stops, current_stops, efa.operating_areas, …)')
    .requiredOption('--out <file>', 'the file to write (replaced when it exists; written under a temporary name until complete)')
    .addOption(new Option('--format <format>', 'file format (default: from the extension of --out)').choices([...EXPORT_FORMATS]))
    .addOption(new Option('--batch-size <rows>', 'rows fetched and written at a time: what is held in memory').argParser(positiveNumber('--batch-size')).default(5_000));
  addOutputOptions(addDbOption(addLakeOption(cmd))).action(async (opts: ExportCliOptions) => {
    if (isLakeExport(opts)) return runLakeExport(opts);
    const log = loggerFor(opts);
    // A bad format or extension is told before a database is opened (PGlite takes seconds to start).
    const format = exportFormatOf(opts.format, opts.out);
    // No migration: an analyst's read-only role exports from a schema it cannot change.
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      const summary = await whenDatabaseLost(db, undefined, () =>
        exportRelation(db, { relation: opts.relation, out: opts.out, format, ...(opts.batchSize ? { batchSize: opts.batchSize } : {}) }),
      );
      if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else
        log.info(
          `exported ${summary.rows} rows of ${summary.relation} to ${summary.out} (${summary.format}, ${Math.ceil(summary.bytes / 1024)} KiB) in ${summary.durationS}s` +
            `${summary.geometry ? `; geometry ${summary.geometry}` : '; no geometry'}${summary.key ? `; key ${summary.key}` : ''}`,
        );
    } finally {
      await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
    }
  });
}
