import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { pruneHistory } from '../history/index.js';
import { addCommonOptions, type CommonOptions } from './common.js';
import { openMigratedDb } from './database.js';

interface PruneOptions extends CommonOptions {
  before: Date;
}

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** No version of efa-sync data is older: a bound that also keeps years PostgreSQL cannot take (0000) away from it. */
const EARLIEST = Date.UTC(1970, 0, 1);

/**
 * `--before`: a date (UTC midnight) or an ISO time with a zone (Z or ±hh:mm), checked before the
 * database is opened. Refused: a day the calendar does not have (2026-02-30 is not 2026-03-02), a
 * time without a zone (it would be read in the machine's zone), before 1970, and after `now` (that
 * would prune every version, the ones ending in the future included, without a word).
 */
export function parseBefore(value: string, now: Date = new Date()): Date {
  const bad = (why: string): ConfigError => new ConfigError(`--before: ${why}, got "${value}"`, 'before');
  const m = isoDateTime.exec(value.trim());
  if (m === null) throw bad('expected a date (2026-03-01, UTC midnight) or an ISO time with a zone (2026-03-01T12:00:00Z, 2026-03-01T13:00:00+01:00)');
  const [, y, mo, d, h, mi, sec, fraction, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) throw bad(`${y}-${mo}-${d} is not a day of the calendar`);
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(sec ?? 0) > 59)) throw bad('not a time of day');
  if (h !== undefined && zone === undefined) throw bad('a time needs its zone (Z for UTC, or an offset such as +01:00); a date alone is UTC midnight');
  if (zone !== undefined && zone !== 'Z' && (Number(zone.slice(1, 3)) > 14 || Number(zone.slice(-2)) > 59)) throw bad('not a UTC offset');
  const offsetMin = zone === undefined || zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const ms = fraction === undefined ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear does not.
  const utc = new Date(Date.UTC(2000, month - 1, day, Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0), ms));
  utc.setUTCFullYear(year);
  const t = utc.getTime() - offsetMin * 60_000;
  if (t < EARLIEST) throw bad('before 1970-01-01: no efa-sync data is that old');
  if (t > now.getTime()) throw bad(`in the future (now is ${now.toISOString()}): that would prune every superseded version; give a time up to now`);
  return new Date(t);
}

/** `efa-sync history prune --before <date>`: retention of the kept versions (sql/014_history.sql). */
export function registerHistory(program: Command): void {
  const history = program.command('history').description('the kept versions of every relation (efa.<relation>_history, efa.<relation>_as_of(at))');
  const prune = history
    .command('prune')
    .description('delete the versions that stopped being current before a date; current rows are never touched')
    .requiredOption('--before <date>', 'a date (UTC midnight) or ISO time with a zone, not in the future: versions that ended before it are deleted', (v: string) => parseBefore(v));
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
