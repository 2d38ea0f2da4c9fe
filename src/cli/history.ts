import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { pruneHistory } from '../history/index.js';
import { addCommonOptions, openMigratedDb, type CommonOptions } from './common.js';

interface PruneOptions extends CommonOptions {
  before: Date;
}

/** `--before`: a date (UTC midnight) or a full ISO time; anything else is bad usage, checked before the database is opened. */
export function parseBefore(value: string): Date {
  const t = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t)) throw new ConfigError(`--before: expected a date (2026-03-01) or an ISO time (2026-03-01T12:00:00Z), got "${value}"`, 'before');
  return new Date(t);
}

/** `efa-sync history prune --before <date>`: retention of the kept versions (sql/014_history.sql). */
export function registerHistory(program: Command): void {
  const history = program.command('history').description('the kept versions of every relation (efa.<relation>_history, efa.<relation>_as_of(at))');
  const prune = history
    .command('prune')
    .description('delete the versions that stopped being current before a date; current rows are never touched')
    .requiredOption('--before <date>', 'a date (UTC midnight) or ISO time: versions that ended before it are deleted', parseBefore);
  addCommonOptions(prune, ['db', 'json', 'log']).action(async (opts: PruneOptions) => {
    const db = await openMigratedDb(opts);
    try {
      const pruned = await pruneHistory(db.kysely, opts.before);
      const total = Object.values(pruned).reduce((n, v) => n + v, 0);
      process.stdout.write(
        opts.json
          ? `${JSON.stringify({ before: opts.before.toISOString(), pruned, total })}\n`
          : `pruned ${total} version(s) that ended before ${opts.before.toISOString()}: ${Object.entries(pruned).map(([r, n]) => `${r} ${n}`).join(', ')}\n`,
      );
    } finally {
      await db.close();
    }
  });
}
