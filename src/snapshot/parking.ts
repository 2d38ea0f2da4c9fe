import { minTileOf } from '../tiling/index.js';
import type { ParkingRow, SnapshotWrite } from '../db/snapshots.js';
import type { Job } from '../job/index.js';
import { tileSweepBase, type SnapshotContext } from './context.js';
import { planSnapshotTiles, snapshotRecord } from './plan.js';
import { isParking, toParkingRow } from './rows.js';
import { sweepSnapshotTiles } from './tiles.js';

type ParkingSweep = NonNullable<Job['sweeps']['parking']>;

/**
 * One snapshot of the parking objects and their real-time occupancy: the parking box alone
 * (parkingSearchMethod=BB, parkObjInfo=1, parkObjInfoRealtime=1) per tile, split on the cap.
 */
export async function snapshotParking(ctx: SnapshotContext, cfg: ParkingSweep): Promise<SnapshotWrite<ParkingRow> & { others: number }> {
  const { tiles: planned, known } = await planSnapshotTiles(ctx.db.kysely, {
    jobName: ctx.job.name, kind: 'parking', region: ctx.region, maxPerRequest: cfg.maxPerRequest, minTileSizeDeg: minTileOf(cfg).minTileSizeDeg,
  });
  ctx.log.info(`parking: ${planned.length} tile(s) ${known > 0 ? `planned from ${known} parking objects of the previous snapshot` : 'to start from'}`);
  const swept = await sweepSnapshotTiles({
    ...tileSweepBase(ctx, 'parking', planned, cfg),
    request: (tile) =>
      ctx.client.coordInfoParking({
        parkingBBox: [...tile.bbox],
        parkingObjectType: cfg.objectTypes,
        parkObjInfo: true,
        parkObjInfoRealtime: cfg.realtime,
        max: cfg.maxPerRequest,
      }),
    rowOf: (pin) => (isParking(pin) ? toParkingRow(pin, ctx.timeZone) : undefined),
    keyOf: (row) => row.parkingKey,
  });
  return {
    record: snapshotRecord('parking', swept.tiles, swept.requests, 0),
    tiles: swept.tiles,
    rows: [...swept.rows.values()].map((v) => v.row),
    others: swept.others,
  };
}
