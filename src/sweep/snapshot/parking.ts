import { tileBudgetOf } from '../../tiling/index.js';
import type { ParkingRow, SnapshotWrite } from '../../db/snapshots.js';
import type { Job } from '../../job/index.js';
import type { Dialect } from '../../efa/dialect.js';
import type { AutoDialect } from '../../efa/dialects/auto.js';
import { tileSweepBase, type SnapshotContext } from './context.js';
import { planSnapshotTiles, snapshotRecord } from './plan.js';
import { isParking, toParkingRow } from '../../relations/parking-snapshots/index.js';
import { sweepSnapshotTiles } from './tiles.js';

type ParkingSweep = NonNullable<Job['sweeps']['parking']>;

/**
 * Whether the answers are legacy EFA JSON, which writes every value as text ("12"): only there is
 * a figure in text a number. The published rapidJSON schema types the figures as numbers and the
 * json dialect sends JSON numbers, so text there is a figure not read (relations/parking-snapshots/figures.ts).
 */
function writesNumbersAsText(dialect: Dialect): boolean {
  const chosen = 'chosen' in dialect ? (dialect as AutoDialect).chosen : dialect;
  return chosen?.name === 'legacy';
}

/**
 * One snapshot of the parking objects and their real-time occupancy: the parking box alone
 * (parkingSearchMethod=BB, parkObjInfo=1, parkObjInfoRealtime=1) per tile, split on the cap.
 */
export async function snapshotParking(ctx: SnapshotContext, cfg: ParkingSweep): Promise<SnapshotWrite<ParkingRow> & { others: number }> {
  const budget = tileBudgetOf(cfg);
  const { tiles: planned, known } = await planSnapshotTiles(ctx.db.kysely, { jobName: ctx.job.name, kind: 'parking', region: ctx.region, budget });
  ctx.log.info(`parking: ${planned.length} tile(s) ${known > 0 ? `planned from ${known} parking objects of the previous snapshot` : 'to start from'}`);
  const swept = await sweepSnapshotTiles({
    ...tileSweepBase(ctx, 'parking', planned, budget),
    request: (tile) =>
      ctx.client.coordInfoParking({
        parkingBBox: [...tile.bbox],
        parkingObjectType: cfg.objectTypes,
        parkObjInfo: true,
        parkObjInfoRealtime: cfg.realtime,
        max: budget.maxPerRequest,
      }),
    rowOf: (pin) => (isParking(pin) ? toParkingRow(pin, writesNumbersAsText(ctx.client.dialect), ctx.timeZone) : undefined),
    keyOf: (row) => row.parkingKey,
    problemsOf: (row) => row.problems ?? [],
  });
  const rejected = swept.rejects.length;
  if (rejected > 0) ctx.log.warn(`parking: ${rejected} record(s) or figure(s) not stored as sent (see efa.rejects of this run)`);
  return {
    record: snapshotRecord('parking', swept.tiles, swept.requests, 0),
    tiles: swept.tiles,
    rows: [...swept.rows.values()].map((v) => v.row),
    rejects: swept.rejects,
    others: swept.others,
  };
}
