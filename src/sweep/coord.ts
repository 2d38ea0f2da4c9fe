import { recordTiles, type TileRecord } from '../db/ledger.js';
import type { CoordInfoBoxOptions, EfaResult, Pin } from '../efa/index.js';
import { pins, toPinRow } from '../entities/index.js';
import { isSharingVehicle } from '../entities/pins.js';
import type { Job } from '../job/index.js';
import { effectiveMax, inRegion, observeAnswer, ownsPoint, splitTile, type Tile } from '../tiling/index.js';
import { failpoint } from '../util/failpoint.js';
import { errorText, isFatal, keepMessages, storeRejects, type SweepContext } from './context.js';
import { redactText } from '../util/redact.js';
import { drainQueue } from './queue.js';
import { judgeBoxAnswer } from './trust.js';

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

/** A planned tile; `hits` holds what the plan knew in it until the tile is fetched (a resume reads it back). */
export const pendingRecord = (tile: Tile): TileRecord => tileRecord(tile, { status: 'pending', attempts: 0, hits: tile.known ?? 0, durationMs: 0 });

/**
 * CoordInfo over the tiles. What a tile's answer may tell (trust.ts): an answer that holds as many
 * records as `max` (parsed and rejected alike) was cut by the server: its tile is split where its
 * hits lie, and the children are recorded as pending in the same transaction that marks it split.
 * Below the minimum tile size the capped answer is kept and the tile recorded as capped. An answer
 * with rejects is stored but `incomplete`; one whose records lie mostly outside the box, or are all
 * rejected, fails the tile. Only `done` tiles delete. Each stored tile keeps only the pins it owns
 * (half-open edges) inside the region, so a pin on a shared edge is written once.
 * `tiles` must already be recorded as pending.
 */
export async function sweepCoord(ctx: SweepContext, tiles: readonly Tile[]): Promise<void> {
  const cfg = ctx.job.sweeps.coord;
  if (!cfg) return;
  ctx.progress.phase('coordInfo');
  ctx.progress.addTotal(tiles.length);
  const runId = ctx.run.runId;

  const fail = async (tile: Tile, started: number, attempts: number, text: string): Promise<Tile[]> => {
    const message = redactText(text, ctx.secrets);
    ctx.log.warn(`coordInfo tile ${tile.id} failed: ${message}`);
    await ctx.transact((tx) =>
      recordTiles(tx.kysely, runId, [tileRecord(tile, { status: 'failed', attempts, hits: 0, durationMs: Date.now() - started, error: message })]),
    );
    ctx.stats.addUnit('coordInfo', 'failed');
    ctx.progress.unitDone(true);
    return [];
  };

  // A silent server cap, once noticed, is the count at which an answer is cut.

  await drainQueue(tiles, ctx.job.rateLimit.concurrency, async (tile) => {
    const started = Date.now();
    let result: EfaResult<Pin>;
    try {
      result = await ctx.client.coordInfoBox(coordRequest(cfg, tile));
    } catch (error) {
      if (isFatal(error)) throw error;
      return fail(tile, started, 0, errorText(error));
    }
    failpoint('request');
    keepMessages(ctx, result.messages);
    const verdict = judgeBoxAnswer(tile.bbox, result, effectiveMax(ctx.capDetector, cfg.maxPerRequest), `coordInfo tile ${tile.id}`);
    observeAnswer(ctx.capDetector, tile, verdict.received, cfg.maxPerRequest);
    const done = { attempts: result.attempts, hits: verdict.received, durationMs: Date.now() - started };
    if (verdict.kind !== 'untrusted') ctx.splitMemory.observe(tile, verdict.received, verdict.kind === 'capped');
    if (verdict.kind === 'untrusted') {
      await ctx.transact((tx) => storeRejects(ctx, tx, tile.id, [...result.rejects, ...verdict.outside]));
      return fail(tile, started, result.attempts, verdict.reason);
    }
    if (verdict.kind === 'capped') {
      const children = splitTile(tile, result.records.map((h) => h.coord), {
        maxPerRequest: effectiveMax(ctx.capDetector, cfg.maxPerRequest),
        minTileSizeDeg: cfg.minTileSizeDeg,
        region: ctx.region,
        memory: ctx.splitMemory,
      });
      if (children !== 'too-small') {
        await ctx.transact(async (tx) => {
          await recordTiles(tx.kysely, runId, [tileRecord(tile, { status: 'split', ...done }), ...children.map(pendingRecord)]);
          failpoint('tile-commit');
        });
        ctx.stats.addUnit('coordInfo', 'split');
        ctx.progress.split(children.length);
        ctx.progress.unitDone();
        return children;
      }
      ctx.log.warn(`coordInfo tile ${tile.id} is capped at ${verdict.received} records and too small to split; some objects may be missing`);
      ctx.stats.capped.push({ operation: 'coordInfo', unit: tile.id, hits: verdict.received });
    }
    const status = verdict.kind === 'capped' ? 'capped' : verdict.kind === 'incomplete' ? 'incomplete' : 'done';
    if (verdict.kind === 'incomplete') {
      ctx.log.warn(`coordInfo tile ${tile.id}: ${verdict.reason}; stored, but nothing in it is marked deleted`);
      ctx.stats.incomplete.push({ operation: 'coordInfo', unit: tile.id, reason: verdict.reason });
    }
    // Duplicate ids were resolved by the client (the same answer in any order keeps the same copy).
    const owned = verdict.inside.filter((h) => ownsPoint(tile, h.coord, ctx.regionBBox) && inRegion(ctx.region, h.coord));
    // Sharing vehicles are a time series of the snapshot sweep, not pins: counted, not stored.
    const rows = owned.filter((h) => !isSharingVehicle(h)).map(toPinRow);
    ctx.stats.vehiclesNotStored += owned.length - rows.length;
    const rejects = [...result.rejects, ...verdict.outside];
    try {
      await ctx.transact.rows(pins, rows, async (tx) => {
        await storeRejects(ctx, tx, tile.id, rejects);
        await recordTiles(tx.kysely, runId, [tileRecord(tile, { status, ...done })]);
        failpoint('tile-commit');
      });
    } catch (error) {
      if (isFatal(error)) throw error;
      return fail(tile, started, result.attempts, `writing its rows failed: ${errorText(error)}`);
    }
    ctx.stats.addUnit('coordInfo', status);
    ctx.progress.unitDone();
    return [];
  });
}
