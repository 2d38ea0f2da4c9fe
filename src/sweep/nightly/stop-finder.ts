import { seenInRun } from '../../db/ledger.js';
import { mergeRows } from '../../db/merge.js';
import type { Location, Pin } from '../../efa/index.js';
import { pins, toPinRow } from '../../relations/index.js';
import type { SweepContext } from './context.js';
import { drainQueue } from './queue.js';
import { runUnit } from './unit.js';

/** The server's best match: `isBest` when it marks one (not necessarily first), else the highest quality. */
export function bestLocation(locations: readonly Location[]): Location | undefined {
  return locations.find((l) => l.isBest) ?? [...locations].sort((a, b) => b.matchQuality - a.matchQuality)[0];
}

export function locationToPin(location: Location): Pin | undefined {
  if (!location.coord) return undefined;
  return {
    type: location.type.toLowerCase() === 'stop' ? 'STOP' : location.type.toUpperCase(),
    id: location.id,
    name: location.name,
    coord: location.coord,
    motTypes: [...(location.motTypes ?? [])],
    ...(location.globalId ? { globalId: location.globalId } : {}),
    attrs: { ...location.attrs, resolvedBy: 'stopFinder' },
  };
}

/**
 * Resolves the stop names a job lists. A resolved stop the CoordInfo sweep already stored this run
 * is left as CoordInfo described it (richer, and two operations must not overwrite each other every
 * night); one outside the swept tiles is stored from the StopFinder answer.
 */
export async function sweepStopFinder(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.stopFinder;
  if (!cfg) return;
  ctx.progress.phase('stopFinder');
  ctx.progress.addTotal(cfg.names.length);
  await drainQueue(cfg.names, ctx.job.rateLimit.concurrency, async (name) => {
    await runUnit(
      ctx,
      { operation: 'stopFinder', id: `name:${name}` },
      () => ctx.client.stopFinder({ type: 'any', name }),
      async (tx, result) => {
        const best = bestLocation(result.records);
        const pin = best && locationToPin(best);
        if (!pin) {
          ctx.log.warn(`stopFinder: no located match for "${name}"`);
          return;
        }
        ctx.log.info(`stopFinder: "${name}" -> ${pin.id} ${pin.name}`);
        const row = toPinRow(pin);
        if (!(await seenInRun(tx.kysely, ctx.run.runId, 'pins', row.pin_key))) await mergeRows(tx, pins, ctx.run, [row]);
      },
    );
    return [];
  });
}
