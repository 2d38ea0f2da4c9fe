import pLimit from 'p-limit';
import type { Db } from '../db/connect.js';
import type { EfaClient } from '../efa/client.js';
import type { ServerMessage } from '../efa/records.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import type { BBox } from '../tiling/index.js';
import type { Logger } from '../util/log.js';
import type { Progress } from './progress.js';
import type { RunStats } from './stats.js';

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
  /** All database writes of a run go through here, one at a time, in arrival order. */
  readonly write: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly messages: Map<string, ServerMessage>;
  /** Units finished before a crash, per operation: a resumed run does not fetch them again. */
  readonly finished: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ignore incremental state (`--full`). */
  readonly full: boolean;
}

export function createWriteQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  // Tiles arrive concurrently; serialising their transactions avoids deadlocks between batches that
  // share keys (a pin on a shared edge) and keeps the database load flat.
  const limit = pLimit(1);
  return (fn) => limit(fn);
}

export function keepMessages(ctx: SweepContext, messages: readonly ServerMessage[]): void {
  for (const m of messages) {
    const key = `${m.code ?? ''}|${m.text}`;
    if (!ctx.messages.has(key) && ctx.messages.size < 100) ctx.messages.set(key, m);
  }
}

/** One line for logs and run records; messages of our named errors already say what and where. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && !error.message.includes(cause.message) ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/**
 * Errors that no retry and no other tile can fix (the deployment answers in a projected grid, a
 * bad configuration): they end the run at once with their own exit code instead of failing tiles.
 */
export function isFatal(error: unknown): boolean {
  return (error as { exitCode?: unknown } | null)?.exitCode === 2;
}
