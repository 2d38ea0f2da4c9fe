import { sql } from 'kysely';
import { pinsRelation } from '../db/relations.js';
import { upsertTracked } from '../db/upsert.js';
import type { Location, Pin } from '../efa/index.js';
import { toPinRow } from '../normalize/pins.js';
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
    motTypes: location.motTypes ?? [],
    ...(location.globalId === undefined ? {} : { globalId: location.globalId }),
    attrs: { ...location.attrs, resolvedBy: 'stopFinder' },
  };
}

/**
 * Resolves the stop names a job lists. A resolved stop the CoordInfo sweep already stored this run
 * is left as CoordInfo described it (richer, and two sources must not overwrite each other every
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
      async (trx, result) => {
        const best = bestLocation(result.records);
        const pin = best && locationToPin(best);
        if (!pin) {
          ctx.log.warn(`stopFinder: no located match for "${name}"`);
          return;
        }
        ctx.log.info(`stopFinder: "${name}" -> ${pin.id} ${pin.name}`);
        const row = toPinRow(pin);
        const seen = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM efa.run_seen WHERE run_id = ${ctx.runId}::bigint AND relation = 'pins' AND key = ${row.pin_key}`.execute(trx);
        if ((seen.rows[0]?.n ?? 0) === 0) await upsertTracked(trx, pinsRelation, ctx.runId, [row]);
      },
    );
    return [];
  });
}
