import { Option, type Command } from 'commander';
import { openDb, redactUrl } from '../db/index.js';
import { copyWarehouse, type CopyProgress } from '../db/copy-warehouse.js';
import { ConfigError } from '../errors.js';
import { formatTable } from '../util/table.js';
import { addCommonOptions, loggerFor, type CommonOptions } from './common.js';
import { openMigratedDb, whenDatabaseLost } from './database.js';
import { embeddedSource, registerDbDump } from './db-dump.js';

interface DbCopyOptions extends CommonOptions {
  to: string;
  replace?: boolean;
}

/** `--to`: a PostgreSQL server; the embedded database is what is copied from, not into. */
function targetUrl(value: string): string {
  if (!/^postgres(ql)?:\/\//.test(value)) throw new ConfigError(`--to: expected a PostgreSQL URL (postgres://user@host:5432/database), got "${redactUrl(value)}"`, 'to');
  return value;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * `efa-sync db copy --to postgres://…`: the embedded warehouse moves to a server whole, with every
 * kept version, run, ledger row and snapshot (src/db/copy-warehouse.ts). The source is the `--db` of
 * every other command (so the default `./.efa-sync/db` needs no option); it is opened, and so locked
 * against any other process, for the whole copy.
 */
export function registerDbCopy(db: Command): void {
  const cmd = db
    .command('copy')
    .description('copy the embedded warehouse (--db pglite:<dir>, the default) into a PostgreSQL server: every table, kept version, run and snapshot')
    .addOption(new Option('--to <url>', 'the PostgreSQL database to fill (postgres://user@host:5432/db, with PostGIS); it is migrated first').makeOptionMandatory())
    .option('--replace', 'empty a target that already holds efa data and copy into it (one transaction: a failed copy leaves it as it was)');
  addCommonOptions(cmd, ['db', 'json', 'log'], { db: 'the embedded database to copy: pglite:<dir> (default $DATABASE_URL, else pglite:./.efa-sync/db)' }).action(
    async (opts: DbCopyOptions) => {
      const log = loggerFor(opts);
      const to = targetUrl(opts.to);
      const started = Date.now();
      const source = await openMigratedDb({ ...opts, db: embeddedSource(opts.db, 'db copy') });
      try {
        const target = await openDb(to);
        try {
          log.info(`copying ${source.displayUrl} into ${target.displayUrl}`);
          const onProgress = (p: CopyProgress): void => {
            if (!p.done) log.info(`${p.table}: ${count(p.rows)} of ${count(p.of)} rows`);
            else if (p.rows > 0) log.debug(`${p.table}: ${count(p.rows)} rows`);
          };
          const result = await whenDatabaseLost(target, undefined, () => copyWarehouse(source, target, { replace: opts.replace === true, onProgress }));
          const rows = result.tables.reduce((n, t) => n + t.rows, 0);
          const summary = { from: source.displayUrl, to: target.displayUrl, rows, durationS: (Date.now() - started) / 1000, ...result };
          if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
          else {
            process.stdout.write(formatTable(['table', 'rows (source = target)'], result.tables.map((t) => [t.table, count(t.rows)])));
            process.stdout.write(
              `copied ${count(rows)} rows in ${result.tables.length} tables and ${result.sequences} sequences into ${target.displayUrl} in ${summary.durationS.toFixed(1)} s` +
                (result.partitionsCreated.length > 0 ? `; ${result.partitionsCreated.length} day partition(s) created` : '') +
                (result.replaced.length > 0 ? `; replaced what ${result.replaced.length} table(s) held` : '') +
                `.\nRun efa-sync with --db ${target.displayUrl} from now on; grant-reader roles are the server's own: run grant-reader there again.\n`,
            );
          }
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    },
  );
}

/** `efa-sync db …`: the warehouse as a whole. */
export function registerDb(program: Command): void {
  const db = program.command('db').description('the warehouse as a whole: copy it into a PostgreSQL server, or dump it as SQL');
  registerDbCopy(db);
  registerDbDump(db);
}
