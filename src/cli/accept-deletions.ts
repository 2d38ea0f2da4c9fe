import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/log.js';
import { OPTION_ENV } from './common.js';

/**
 * `--accept-deletions [run-id]`: the release of a mass-deletion hold, bounded to one checked run.
 * The bare flag and EFA_ACCEPT_DELETIONS=1 of earlier releases keep working, deprecated: they
 * release any night's share holds (never an emptied relation), which is what a flag forgotten in a
 * Compose file or CronJob must not do, so every run that has one says so.
 */

const trueWords = /^(1|true|yes|on)$/i;
const runId = /^[1-9][0-9]{0,18}$/;

export type AcceptDeletions = true | { readonly runId: string; /** The flag or variable it came from, for messages. */ readonly from: string } | undefined;

/** The largest run id efa.runs can hold (bigint): a larger number names no run. */
const MAX_RUN_ID = 9223372036854775807n;

/**
 * The option's value as commander left it (true for the bare flag, '' for the bare flag the argv
 * rewrite kept bare, a string otherwise) and where it came from; a value that is no run id is a
 * ConfigError naming the flag or the variable.
 */
export function acceptDeletionsFrom(value: string | boolean | undefined, source: string | undefined, log: Logger): AcceptDeletions {
  if (value === undefined || value === false) return undefined;
  const name = source === 'env' ? OPTION_ENV.acceptDeletions : '--accept-deletions';
  const text = typeof value === 'string' ? value.trim() : '';
  if (value === true || text === '' || (source === 'env' && trueWords.test(text))) {
    log.warn(
      `${name} without a run id is deprecated: it releases the share holds of any night it is left on (never an answer that empties a relation). Give the run whose held deletions you checked: --accept-deletions <run id>${source === 'env' ? `, or unset ${name}` : ''}`,
    );
    return true;
  }
  if (!runId.test(text)) {
    throw new ConfigError(`${name}: expected the id of the run whose held deletions you checked (efa-sync runs), e.g. --accept-deletions 42, got "${text}"`, name);
  }
  if (BigInt(text) > MAX_RUN_ID) {
    throw new ConfigError(`${name}: ${text} is no run id (run ids are at most ${MAX_RUN_ID}); give the id of the run whose held deletions you checked (efa-sync runs)`, name);
  }
  return { runId: text, from: name };
}

/**
 * A run id is checked against efa.runs before any request is sent: it must be a run of this very job.
 * A typo would otherwise sweep the whole night and release nothing, or fail at its end.
 */
export async function checkAcceptedRun(db: Db, job: string, accept: AcceptDeletions): Promise<void> {
  if (accept === undefined || accept === true) return;
  const name = accept.from;
  const table = await sql<{ t: string | null }>`SELECT to_regclass('efa.runs')::text AS t`.execute(db.kysely);
  const found = table.rows[0]?.t
    ? (await sql<{ job_name: string }>`SELECT job_name FROM efa.runs WHERE run_id = ${accept.runId}::bigint`.execute(db.kysely)).rows[0]
    : undefined;
  if (found === undefined) {
    throw new ConfigError(`${name}: there is no run ${accept.runId} in ${db.displayUrl}; give the id of a run of job ${job} whose held deletions you checked (efa-sync runs --job ${job})`, name);
  }
  if (found.job_name !== job) {
    throw new ConfigError(`${name}: run ${accept.runId} is a run of job ${found.job_name}, not of job ${job}; give the id of a run of job ${job} (efa-sync runs --job ${job})`, name);
  }
}

/**
 * commander gives an option with an optional value the next word whatever it is, so
 * `run --accept-deletions jobs/x.json` (a form earlier releases documented) would take the job
 * file for a run id: a next word that is no number stays a word of its own.
 */
export function keepBareAcceptDeletions(argv: readonly string[]): string[] {
  const out = [...argv];
  for (let i = 0; i < out.length - 1; i += 1) {
    if (out[i] === '--') break;
    if (out[i] === '--accept-deletions' && !/^[0-9]+$/.test(out[i + 1] ?? '')) out[i] = '--accept-deletions=';
  }
  return out;
}
