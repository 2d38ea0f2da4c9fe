import { recordTiles, type TileRecord } from '../db/runs.js';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.js';
import type { EfaResult } from '../efa/index.js';
import { insertRejects } from '../db/rejects.js';
import { errorText, isFatal, keepMessages, type SweepContext } from './context.js';
import { failpoint } from '../util/failpoint.js';

export interface Unit {
  readonly operation: string;
  readonly id: string;
  readonly bbox?: readonly [number, number, number, number];
}

/**
 * One request-sized piece of work that is not a CoordInfo tile (a stop's serving lines, an OpArea
 * circle, the AddInfo query): fetch, then store its rows and its progress record in one
 * transaction. A failure is recorded and counted, never thrown: the run goes on and ends partial.
 * Returns whether the unit succeeded.
 */
export async function runUnit<T>(
  ctx: SweepContext,
  unit: Unit,
  fetch: () => Promise<EfaResult<T>>,
  store: (trx: Transaction<Database>, result: EfaResult<T>) => Promise<void>,
): Promise<boolean> {
  if (ctx.finished.get(unit.operation)?.has(unit.id)) {
    ctx.progress.unitDone();
    return true;
  }
  const started = Date.now();
  const progress = (status: TileRecord['status'], attempts: number, hits: number, error?: string): TileRecord => ({
    operation: unit.operation,
    tileId: unit.id,
    depth: 0,
    bbox: unit.bbox,
    status,
    attempts,
    hits,
    durationMs: Date.now() - started,
    error,
  });
  let result: EfaResult<T>;
  try {
    result = await fetch();
  } catch (error) {
    if (isFatal(error)) throw error;
    const message = errorText(error);
    ctx.log.warn(`${unit.operation} ${unit.id} failed: ${message}`);
    await ctx.transact((trx) => recordTiles(trx, ctx.runId, [progress('failed', 0, 0, message)]));
    ctx.stats.addUnit(unit.operation, 'failed');
    ctx.progress.unitDone(true);
    return false;
  }
  keepMessages(ctx, result.messages);
  await ctx.transact(async (trx) => {
    await store(trx, result);
    ctx.stats.rejects += await insertRejects(trx, ctx.runId, result.rejects);
    await recordTiles(trx, ctx.runId, [progress('done', result.attempts, result.records.length)]);
    failpoint('unit-commit');
  });
  ctx.stats.addUnit(unit.operation, 'done');
  ctx.progress.unitDone();
  return true;
}
