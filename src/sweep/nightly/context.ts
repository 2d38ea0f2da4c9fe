import type { BatchingWriter } from '../../db/batching-writer.js';
import type { Db, Tx } from '../../db/connect.js';
import { insertRejects, type RejectInput } from '../../db/ledger.js';
import type { OpenedRun } from '../../db/runs.js';
import type { EfaClient } from '../../efa/client.js';
import type { ServerMessage } from '../../efa/records.js';
import type { Job, ResolvedRegion } from '../../job/index.js';
import type { BBox, CapDetector, SpatialCheck, SplitMemory } from '../../tiling/index.js';
import type { Logger } from '../../util/log.js';
import type { Progress } from './progress.js';
import type { RunStats } from './stats.js';

/** Everything one sweep module needs; built once per run by the nightly kind (nightly.ts). */
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
   * this process still holds the run (the lease). The writer is db/batching-writer.ts.
   */
  readonly transact: BatchingWriter;
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
  /**
   * Whether the run's CoordInfo answers are spatial: one check for every sweep of the phase (a
   * pilot's strata too), so what one stratum learnt stops the next sooner and the run says it once.
   */
  readonly spatialCheck: SpatialCheck;
}

export function keepMessages(ctx: SweepContext, messages: readonly ServerMessage[]): void {
  for (const m of messages) {
    const key = `${m.code ?? ''}|${m.text}`;
    if (!ctx.messages.has(key) && ctx.messages.size < 100) ctx.messages.set(key, m);
  }
}

/** Rejects are counted where they are stored (efa.rejects), so a resumed run counts the whole run's. */
export async function storeRejects(ctx: SweepContext, tx: Tx, unit: string, rejects: readonly RejectInput[]): Promise<void> {
  await insertRejects(tx.kysely, ctx.run, unit, rejects);
}
