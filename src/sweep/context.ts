import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.js';
import { ExitCode, exitCodeOf } from '../errors.js';
import type { Db } from '../db/connect.js';
import type { EfaClient } from '../efa/client.js';
import type { ServerMessage } from '../efa/records.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import type { BBox } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import type { Progress } from './progress.js';
import type { RunStats } from './stats.js';

/** Moved to src/errors.ts (one error-to-text for the whole program); re-exported for the sweep modules. */
export { errorText } from '../errors.js';

/** Everything one sweep module needs; built once per run by the orchestrator. */
export interface SweepContext {
  readonly db: Db;
  readonly runId: string;
  readonly job: Job;
  readonly region: ResolvedRegion;
  readonly regionBBox: BBox;
  readonly client: EfaClient;
  readonly log: Logger;
  readonly stats: RunStats;
  readonly progress: Progress;
  /** The run date (UTC, YYYY-MM-DD): AddInfo's "current" and CoordInfo's deadline. */
  readonly today: string;
  /**
   * Every database write of a run goes through here: one writer, in arrival order, and the work
   * items waiting at the same moment share one transaction (each item's rows and progress record
   * still commit together, and never partly).
   */
  readonly transact: <T>(fn: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;
  readonly messages: Map<string, ServerMessage>;
  /** Units finished before a crash, per operation: a resumed run does not fetch them again. */
  readonly finished: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ignore incremental state (`--full`). */
  readonly full: boolean;
}

interface Pending {
  readonly fn: (trx: Transaction<Database>) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** How many waiting work items one transaction takes at most. */
const batchLimit = 100;

/**
 * Tiles and stops arrive concurrently. One writer avoids deadlocks between batches that share keys
 * (a pin on a shared edge); grouping the items that wait into one transaction saves a commit each,
 * which is most of the cost of a small unit on PGlite (one stop's lines: a few rows).
 */
export function createBatchingWriter(db: Kysely<Database>): SweepContext['transact'] {
  const pending: Pending[] = [];
  let draining = false;
  const drain = async (): Promise<void> => {
    draining = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, batchLimit);
      try {
        const results = await db.transaction().execute(async (trx) => {
          const out: unknown[] = [];
          for (const item of batch) out.push(await item.fn(trx));
          return out;
        });
        batch.forEach((item, i) => item.resolve(results[i]));
      } catch (error) {
        batch.forEach((item) => item.reject(error));
      }
    }
    draining = false;
  };
  return <T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) void drain();
    });
}

export function keepMessages(ctx: SweepContext, messages: readonly ServerMessage[]): void {
  for (const m of messages) {
    const key = `${m.code ?? ''}|${m.text}`;
    if (!ctx.messages.has(key) && ctx.messages.size < 100) ctx.messages.set(key, m);
  }
}

/**
 * Errors that no retry and no other tile can fix (the deployment answers in a projected grid, a
 * bad configuration): they end the run at once with their own exit code instead of failing tiles.
 */
export function isFatal(error: unknown): boolean {
  return exitCodeOf(error) === ExitCode.usage;
}
