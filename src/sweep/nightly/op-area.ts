import { booleanIntersects } from '@turf/boolean-intersects';
import { mergeRows } from '../../db/merge.js';
import { rejectUnrepairableAreas } from '../../db/areas.js';
import type { OpAreaOptions } from '../../efa/index.js';
import { operatingAreas, regionGeoJson, sharingProviders, toProviderRows } from '../../relations/index.js';
import { storeRejects, type SweepContext } from './context.js';
import { radialCircles } from './plan.js';
import { drainQueue } from './queue.js';
import { runUnit } from './unit.js';
import type { BBox } from '../../tiling/types.js';

/**
 * OpArea: `ALL` once, or `RADIAL` around each cell of a grid over the region. Providers and areas
 * are keyed, so one seen from several circles is stored once; an area whose polygon PostGIS cannot
 * make valid goes to efa.rejects with its raw record. Each area is marked inside the job's region
 * or not (some deployments answer nationwide); `clipToRegion` keeps only those inside.
 */
export async function sweepOpArea(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.opArea;
  if (!cfg) return;
  ctx.progress.phase('opArea');
  const common = {
    operatingZoneGeometry: cfg.geometry,
    ...(cfg.vehicleKinds ? { vehSF: cfg.vehicleKinds } : {}),
  };
  const requests: { id: string; options: OpAreaOptions; bbox?: BBox }[] = [];
  if (cfg.mode === 'ALL') {
    requests.push({ id: 'all', options: { opareaSM: 'ALL', ...common } });
  } else {
    for (const c of radialCircles(ctx.region, cfg.radiusM)) {
      const options: OpAreaOptions = { opareaSM: 'RADIAL', coordRadius: { coord: c.centre, radiusM: c.radiusM }, ...common };
      requests.push({ id: c.tile.id, bbox: c.tile.bbox, options });
    }
  }
  const region = { type: 'Feature' as const, properties: {}, geometry: regionGeoJson(ctx.region) as unknown as GeoJSON.Polygon };
  const inRegion = (rings: readonly (readonly (readonly [number, number])[])[]): boolean =>
    booleanIntersects({ type: 'Polygon', coordinates: rings.map((r) => r.map(([x, y]) => [x, y])) }, region);
  ctx.progress.addTotal(requests.length);
  await drainQueue(requests, ctx.job.rateLimit.concurrency, async (req) => {
    await runUnit(
      ctx,
      { operation: 'opArea', id: req.id, ...(req.bbox ? { bbox: req.bbox } : {}) },
      () => ctx.client.opArea(req.options),
      async (tx, result) => {
        const rows = result.records.map((p) => toProviderRows(p, inRegion));
        const areas = rows.flatMap((r) => r.areas).filter((a) => !cfg.clipToRegion || a.in_region !== false);
        const providers = rows.filter((r) => !cfg.clipToRegion || r.areas.length === 0 || r.areas.some((a) => a.in_region !== false));
        await mergeRows(tx, sharingProviders, ctx.run, providers.map((r) => r.provider));
        const { ok, rejected } = await rejectUnrepairableAreas(tx.kysely, areas);
        await mergeRows(tx, operatingAreas, ctx.run, ok);
        await storeRejects(
          ctx,
          tx,
          req.id,
          rejected.map((r) => ({ operation: 'opArea', reason: `area ${r.area.area_key}: ${r.reason}`, raw: r.area.raw })),
        );
      },
    );
    return [];
  });
}
