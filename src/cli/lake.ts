import { Option, type Command } from 'commander';
import { sql } from 'kysely';
import { dbUrlFrom, openDb, type Db } from '../db/index.js';
import { ConfigError, errorText } from '../errors.js';
import { exportLake, lakeRelationsOf, openLake, parseDay } from '../lake/index.js';
import { loggerFor, positiveNumber, type CommonOptions } from './common.js';
import { whenDatabaseLost } from './database.js';
import { exportDbOptions, stopExportOnSignal } from './export-stop.js';
import { parseNow } from './now.js';

/**
 * `efa-sync export --lake <dir>`: the time series and the history as Hive-partitioned GeoParquet
 * (src/lake/). Kept apart from the one-file export: `addLakeOption` adds the options to `export`,
 * and its action hands over to `runLakeExport` when `--lake` is given.
 */
export interface LakeCliOptions extends CommonOptions {
  lake: string;
  source?: string;
  relations?: string;
  since?: string;
  until?: string;
  now?: string;
  rowGroupRows?: number;
  maxRowsPerFile?: number;
  statementTimeout?: number;
  /** The one-file export's options: refused with --lake. */
  relation?: string;
  out?: string;
  format?: string;
}

export function isLakeExport(opts: object): opts is LakeCliOptions {
  return typeof (opts as { lake?: unknown }).lake === 'string';
}

/**
 * Adds `--lake` and its options to `export`. `--relation` and `--out` stay required for the
 * one-file export but not for the lake: commander checks them before any action, so their
 * requirement moves into a check that runs only without `--lake`.
 */
export function addLakeOption(cmd: Command): Command {
  const fileOnly = cmd.options.filter((o) => o.mandatory && (o.long === '--relation' || o.long === '--out'));
  for (const o of fileOnly) o.mandatory = false;
  cmd
    .option('--lake <dir>', 'write the time series and the history to <dir> as GeoParquet partitioned by source and day (docs/lake.md); only days not written yet')
    .option('--source <name>', '--lake: only this source')
    .option('--relations <list>', '--lake: comma-separated tables (default: vehicle_snapshots, parking_snapshots and every <relation>_history)')
    .option('--since <day>', '--lake: first UTC day (YYYY-MM-DD)')
    .option('--until <day>', '--lake: last UTC day (YYYY-MM-DD)')
    .addOption(new Option('--now <iso>', '--lake: the time taken as now (default: the database\'s): its UTC day is not complete yet').hideHelp())
    .addOption(new Option('--row-group-rows <rows>', '--lake: rows per fetch and per Parquet row group: what is held in memory').argParser(positiveNumber('--row-group-rows')).default(20_000))
    .addOption(new Option('--max-rows-per-file <rows>', '--lake: rows per file before a day gets another part').argParser(positiveNumber('--max-rows-per-file')).default(1_000_000));
  cmd.hook('preAction', (command) => {
    const opts = command.opts();
    if (opts['lake'] !== undefined) return;
    // The lake's own options mean nothing to a one-file export: said, not silently ignored.
    for (const name of ['source', 'relations', 'since', 'until', 'now', 'rowGroupRows', 'maxRowsPerFile']) {
      const source = command.getOptionValueSource(name);
      if (source !== undefined && source !== 'default') {
        const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
        throw new ConfigError(`${flag}: only with --lake <dir>; the one-file export takes --relation and --out`, name);
      }
    }
    for (const o of fileOnly) {
      if (opts[o.attributeName()] === undefined) throw new ConfigError(`${o.long ?? o.flags}: required to export one relation to a file (or give --lake <dir> to write the lake)`, o.attributeName());
    }
  });
  return cmd;
}

export async function runLakeExport(opts: LakeCliOptions): Promise<void> {
  const log = loggerFor(opts);
  for (const [given, name] of [[opts.relation, '--relation'], [opts.out, '--out'], [opts.format, '--format']] as const) {
    if (given !== undefined) throw new ConfigError(`${name}: not with --lake, which writes every relation of the lake (choose them with --relations)`, name.slice(2));
  }
  if (opts.lake.trim() === '') throw new ConfigError('--lake: empty; give the lake\'s folder', 'lake');
  // Every value is checked before a database is opened (PGlite takes seconds to start).
  const relations = lakeRelationsOf(opts.relations);
  const since = opts.since === undefined ? undefined : parseDay(opts.since, '--since');
  const until = opts.until === undefined ? undefined : parseDay(opts.until, '--until');
  if (since !== undefined && until !== undefined && until < since) throw new ConfigError(`--until: ${until} is before --since ${since}`, 'until');
  const now = opts.now === undefined ? undefined : parseNow(opts.now, '--now');
  // One writer per folder, known before a database is opened (PGlite takes seconds to start).
  const lock = await openLake(opts.lake);
  let db: Db;
  try {
    // No migration: an analyst's read-only role exports from a schema it cannot change.
    db = await openDb(dbUrlFrom(opts.db), exportDbOptions(opts));
  } catch (error) {
    await lock.release();
    throw error;
  }
  // The partition being built stays in _tmp/, which the next export clears.
  const disposeSignals = stopExportOnSignal(db, log, 'the partition being built', () => lock.releaseNow());
  try {
    const summary = await whenDatabaseLost(db, undefined, async () => {
      const found = await sql<{ t: string | null }>`SELECT to_regclass('efa.snapshots')::text AS t`.execute(db.kysely);
      if (!found.rows[0]?.t) throw new ConfigError(`--lake: ${db.displayUrl} has no efa schema to export; check --db, or run a job (or efa-sync migrate) first`, 'lake');
      return exportLake(
        db,
        { dir: opts.lake, relations, source: opts.source, since, until, now, batchSize: opts.rowGroupRows, maxRowsPerFile: opts.maxRowsPerFile, locked: true },
        log,
      );
    });
    if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else
      log.info(
        `lake ${summary.dir}: wrote ${summary.written} partition(s), ${summary.rows} rows, ${Math.ceil(summary.bytes / 1024)} KiB in ${summary.durationS}s; ` +
          `${summary.kept} already written, ${summary.pending} not complete yet`,
      );
  } finally {
    disposeSignals();
    await db.close().catch((e: unknown) => log.debug(`closing ${db.displayUrl} failed: ${errorText(e)}`));
    await lock.release();
  }
}
