import type { Tx } from '../../db/connect.js';
import { recordTiles, type TileRecord, type UnitStatus } from '../../db/ledger.js';
import { isDuplicateReject, type EfaResult } from '../../efa/index.js';
import { allRejected } from '../index.js';
import { failpoint } from '../../util/failpoint.js';
import { errorText, isFatal } from '../../errors.js';
import { keepMessages, storeRejects, type SweepContext } from './context.js';
import { redactText } from '../../util/redact.js';

export interface Unit {
  readonly operation: string;
  readonly id: string;
  readonly bbox?: readonly [number, number, number, number];
  /** The object the unit is about (a stop's ServingLines request: the stop id). */
  readonly subject?: string;
}

/**
 * One request-sized piece of work that is not a CoordInfo tile (a stop's serving lines, an OpArea
 * circle, the AddInfo query): fetch, then store its rows, its rejects and its progress record in
 * one transaction. An answer with rejected records is stored but recorded `incomplete`: it
 * deletes nothing. A failure (of the request, or of writing this unit's rows) is recorded and
 * counted, never thrown: the run goes on and ends partial. Returns whether the unit was stored.
 */
export async function runUnit<T>(
  ctx: SweepContext,
  unit: Unit,
  fetch: () => Promise<EfaResult<T>>,
  store: (tx: Tx, result: EfaResult<T>) => Promise<void>,
): Promise<boolean> {
  if (ctx.finished.get(unit.operation)?.has(unit.id)) {
    ctx.progress.unitDone();
    return true;
  }
  const started = Date.now();
  const progress = (status: UnitStatus, attempts: number, hits: number, error?: string): TileRecord => ({
    operation: unit.operation,
    tileId: unit.id,
    depth: 0,
    bbox: unit.bbox,
    subject: unit.subject,
    status,
    attempts,
    hits,
    durationMs: Date.now() - started,
    error,
  });
  const fail = async (text: string, attempts: number): Promise<boolean> => {
    const message = redactText(text, ctx.secrets);
    ctx.log.warn(`${unit.operation} ${unit.id} failed: ${message}`);
    await ctx.transact((tx) => recordTiles(tx.kysely, ctx.run.runId, [progress('failed', attempts, 0, message)]));
    ctx.stats.addUnit(unit.operation, 'failed');
    ctx.progress.unitDone(true);
    return false;
  };
  let result: EfaResult<T>;
  try {
    result = await fetch();
  } catch (error) {
    if (isFatal(error)) throw error;
    return fail(errorText(error), 0);
  }
  keepMessages(ctx, result.messages);
  const received = result.records.length + result.rejects.length;
  const rejected = allRejected(result);
  if (rejected !== undefined) {
    await ctx.transact((tx) => storeRejects(ctx, tx, unit.id, result.rejects));
    return fail(rejected, result.attempts);
  }
  // A dropped duplicate copy was received; any other reject means the answer may lack an object.
  const status: UnitStatus = result.rejects.some((r) => !isDuplicateReject(r)) ? 'incomplete' : 'done';
  try {
    await ctx.transact(async (tx) => {
      await store(tx, result);
      await storeRejects(ctx, tx, unit.id, result.rejects);
      await recordTiles(tx.kysely, ctx.run.runId, [progress(status, result.attempts, received)]);
      failpoint('unit-commit');
    });
  } catch (error) {
    if (isFatal(error)) throw error;
    return fail(`writing its rows failed: ${errorText(error)}`, result.attempts);
  }
  ctx.stats.addUnit(unit.operation, status);
  ctx.progress.unitDone();
  return true;
}
