import { areasRelation, providersRelation } from '../db/relations.js';
import { insertRejects, partitionRepairableAreas } from '../db/rejects.js';
import { upsertTracked } from '../db/upsert.js';
import type { OpAreaOptions } from '../efa/index.js';
import { toProviderRows } from '../normalize/providers.js';
import type { SweepContext } from './context.js';
import { radialCircles } from './plan.js';
import { drainQueue } from './queue.js';
import { runUnit } from './unit.js';

/**
 * OpArea: `ALL` once, or `RADIAL` around each cell of a grid over the region. Providers and areas
 * are keyed, so one seen from several circles is stored once; an area whose polygon PostGIS cannot
 * make valid goes to efa.rejects with its raw record.
 */
export async function sweepOpArea(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.opArea;
  if (!cfg) return;
  ctx.progress.phase('opArea');
  const common = {
    operatingZoneGeometry: cfg.geometry,
    ...(cfg.vehicleKinds ? { vehSF: cfg.vehicleKinds } : {}),
  };
  const requests: { id: string; options: OpAreaOptions; bbox?: readonly [number, number, number, number] }[] = [];
  if (cfg.mode === 'ALL') {
    requests.push({ id: 'all', options: { opareaSM: 'ALL', ...common } });
  } else {
    for (const c of radialCircles(ctx.region, cfg.radiusM)) {
      const options: OpAreaOptions = { opareaSM: 'RADIAL', coordRadius: { coord: c.centre, radiusM: c.radiusM }, ...common };
      requests.push({ id: c.tile.id, bbox: c.tile.bbox, options });
    }
  }
  ctx.progress.addTotal(requests.length);
  await drainQueue(requests, ctx.job.rateLimit.concurrency, async (req) => {
    await runUnit(
      ctx,
      { operation: 'opArea', id: req.id, ...(req.bbox ? { bbox: req.bbox } : {}) },
      () => ctx.client.opArea(req.options),
      async (trx, result) => {
        const rows = result.records.map(toProviderRows);
        await upsertTracked(trx, providersRelation, ctx.runId, rows.map((r) => r.provider));
        const { ok, rejected } = await partitionRepairableAreas(trx, rows.flatMap((r) => r.areas));
        await upsertTracked(trx, areasRelation, ctx.runId, ok);
        ctx.stats.rejects += await insertRejects(
          trx,
          ctx.runId,
          rejected.map((r) => ({ operation: 'opArea', reason: `area ${r.area.area_key}: ${r.reason}`, raw: r.area.raw })),
        );
      },
    );
    return [];
  });
}
