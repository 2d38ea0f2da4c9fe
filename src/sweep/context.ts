import { sql } from 'kysely';
import type { Db, Tx } from '../db/connect.js';
import { assertLease, insertRejects, type OpenedRun, type RejectInput } from '../db/ledger.js';
import type { EfaClient } from '../efa/client.js';
import type { ServerMessage } from '../efa/records.js';
import { errorText, isFatal } from '../errors.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import type { BBox, CapDetector, SplitMemory } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import type { Progress } from './progress.js';
import type { RunStats } from './stats.js';


export { errorText, isFatal };

/** Everything one sweep module needs; built once per run by the orchestrator. */
export interface SweepContext {
  readonly db: Db;
  readonly run: OpenedRun;
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
   * Every database write of a run goes through here: one writer, in arrival order. Work items
   * waiting at the same moment share one transaction, each in a savepoint of its own: an item whose
   * write fails is rolled back alone and rejected, the others commit. Each commit first checks that
   * this process still holds the run (the lease).
   */
  readonly transact: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;
  readonly messages: Map<string, ServerMessage>;
  /** Units finished before a crash, per operation: a resumed run does not fetch them again. */
  readonly finished: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ignore incremental state (`--full`). */
  readonly full: boolean;
  /** Notices a silent server cap below `max` across CoordInfo answers. */
  readonly capDetector: CapDetector;
  /** Every credential of the configuration (collectSecrets): redacted from whatever the run stores. */
  readonly secrets: readonly string[];
  /** Raises the run's request budget when a phase learns how much work it holds. */
  readonly extendBudget: (requests: number) => void;
  /** What the run's CoordInfo answers showed about how many pins tiles hold; sizes splits. */
  readonly splitMemory: SplitMemory;
}

interface Pending {
  readonly fn: (tx: Tx) => Promise<unknown>;
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
export function createBatchingWriter(db: Db, run: OpenedRun): SweepContext['transact'] {
  const pending: Pending[] = [];
  let draining = false;
  const drain = async (): Promise<void> => {
    draining = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, batchLimit);
      const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
      try {
        await db.transaction(async (tx) => {
          await assertLease(tx, run);
          for (const item of batch) {
            await sql`SAVEPOINT efa_item`.execute(tx.kysely);
            try {
              outcomes.push({ ok: true, value: await item.fn(tx) });
              await sql`RELEASE SAVEPOINT efa_item`.execute(tx.kysely);
            } catch (error) {
              if (isFatal(error)) throw error;
              await sql`ROLLBACK TO SAVEPOINT efa_item`.execute(tx.kysely);
              // A temporary table the item created is gone with it.
              tx.session.clear();
              outcomes.push({ ok: false, error });
            }
          }
        });
      } catch (error) {
        batch.forEach((item) => item.reject(error));
        continue;
      }
      batch.forEach((item, i) => {
        const o = outcomes[i];
        if (o?.ok) item.resolve(o.value);
        else item.reject(o?.error);
      });
    }
    draining = false;
  };
  return <T>(fn: (tx: Tx) => Promise<T>): Promise<T> =>
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

export async function storeRejects(ctx: SweepContext, tx: Tx, unit: string, rejects: readonly RejectInput[]): Promise<void> {
  ctx.stats.rejects += await insertRejects(tx.kysely, ctx.run, unit, rejects);
}
