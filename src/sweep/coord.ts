import { pinsRelation } from '../db/relations.js';
import { insertRejects } from '../db/rejects.js';
import { recordTiles, type TileRecord } from '../db/runs.js';
import { upsertTracked } from '../db/upsert.js';
import type { CoordInfoBoxOptions, EfaResult, Pin } from '../efa/index.js';
import type { Job } from '../job/index.js';
import { toPinRow } from '../normalize/pins.js';
import { inRegion, ownsPoint, splitTile, type Tile } from '../tiling/index.js';
import { failpoint } from '../util/failpoint.js';
import { errorText, isFatal, keepMessages, type SweepContext } from './context.js';
import { drainQueue } from './queue.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

export function coordRequest(cfg: CoordSweep, tile: Tile): CoordInfoBoxOptions {
  return {
    bbox: [...tile.bbox],
    filters: cfg.types.map((type) => ({
      type,
      // MOT filters only mean something for stop blocks.
      ...(type === 'STOP' && cfg.inclMOT ? { inclMOT: cfg.inclMOT } : {}),
      ...(type === 'STOP' && cfg.exclMOT ? { exclMOT: cfg.exclMOT } : {}),
    })),
    max: cfg.maxPerRequest,
    ...(cfg.parking
      ? {
          parkingBBox: [...tile.bbox],
          parkingObjectType: cfg.parking.objectTypes,
          parkObjInfo: cfg.parking.info,
          parkObjInfoRealtime: cfg.parking.realtime,
        }
      : {}),
  };
}

function tileRecord(tile: Tile, rest: Omit<TileRecord, 'operation' | 'tileId' | 'parentId' | 'depth' | 'bbox'>): TileRecord {
  return { operation: 'coordInfo', tileId: tile.id, parentId: tile.parentId, depth: tile.depth, bbox: tile.bbox, ...rest };
}

export const pendingRecord = (tile: Tile): TileRecord => tileRecord(tile, { status: 'pending', attempts: 0, hits: 0, durationMs: 0 });

/**
 * CoordInfo over the tiles. A tile whose answer holds `maxPerRequest` hits was cut by the server:
 * its hits are not stored, it is split where they lie, and its children are recorded as pending in
 * the same transaction that marks it split, so a crash between the two cannot lose them. Below the
 * minimum tile size the capped answer is kept and the tile is recorded as capped (it never deletes
 * anything). Each stored tile keeps only the pins it owns (half-open edges) inside the region, so
 * a pin on a shared edge is written once. A tile's rows and its progress record commit together.
 * `tiles` must already be recorded as pending.
 */
export async function sweepCoord(ctx: SweepContext, tiles: readonly Tile[]): Promise<void> {
  const cfg = ctx.job.sweeps.coord;
  if (!cfg) return;
  ctx.progress.phase('coordInfo');
  ctx.progress.addTotal(tiles.length);

  await drainQueue(tiles, ctx.job.rateLimit.concurrency, async (tile) => {
    const started = Date.now();
    let result: EfaResult<Pin>;
    try {
      result = await ctx.client.coordInfoBox(coordRequest(cfg, tile));
    } catch (error) {
      if (isFatal(error)) throw error;
      const message = errorText(error);
      ctx.log.warn(`coordInfo tile ${tile.id} failed: ${message}`);
      await ctx.transact((trx) =>
        recordTiles(trx, ctx.runId, [tileRecord(tile, { status: 'failed', attempts: 0, hits: 0, durationMs: Date.now() - started, error: message })]),
      );
      ctx.stats.addUnit('coordInfo', 'failed');
      ctx.progress.unitDone(true);
      return [];
    }
    failpoint('request');
    keepMessages(ctx, result.messages);
    const hits = result.records;
    const capped = hits.length >= cfg.maxPerRequest;
    const done = { attempts: result.attempts, hits: hits.length, durationMs: Date.now() - started };
    if (capped) {
      const children = splitTile(tile, hits.map((h) => h.coord), {
        maxPerRequest: cfg.maxPerRequest,
        minTileSizeDeg: cfg.minTileSizeDeg,
        region: ctx.region,
      });
      if (children !== 'too-small') {
        await ctx.transact(async (trx) => {
          await recordTiles(trx, ctx.runId, [tileRecord(tile, { status: 'split', ...done }), ...children.map(pendingRecord)]);
          failpoint('tile-commit');
        });
        ctx.stats.addUnit('coordInfo', 'split');
        ctx.progress.addTotal(children.length);
        ctx.progress.unitDone();
        return children;
      }
      ctx.log.warn(`coordInfo tile ${tile.id} is capped at ${hits.length} hits and too small to split; some objects may be missing`);
      ctx.stats.capped.push({ operation: 'coordInfo', unit: tile.id, hits: hits.length });
    }
    const rows = hits.filter((h) => ownsPoint(tile, h.coord, ctx.regionBBox) && inRegion(ctx.region, h.coord)).map(toPinRow);
    await ctx.transact(async (trx) => {
      await upsertTracked(trx, pinsRelation, ctx.runId, rows);
      ctx.stats.rejects += await insertRejects(trx, ctx.runId, result.rejects);
      await recordTiles(trx, ctx.runId, [tileRecord(tile, { status: capped ? 'capped' : 'done', ...done })]);
      failpoint('tile-commit');
    });
    ctx.stats.addUnit('coordInfo', capped ? 'capped' : 'done');
    ctx.progress.unitDone();
    return [];
  });
}
