import { recordTiles, type TileRecord } from '../db/ledger.js';
import type { CoordInfoBoxOptions, EfaResult, Pin } from '../efa/index.js';
import { pins, toPinRow } from '../relations/index.js';
import { isSharingVehicle, pinKey } from '../relations/pins.js';
import type { Job } from '../job/index.js';
import { createSpatialCheck, inRegion, minTileOf, ownsPoint, splitTile, type AskBox, type BoxAnswer, type Tile } from '../tiling/index.js';
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

/** What the trust checks read of an answer; sharing vehicles move between two requests and are no identity to compare. */
export function boxAnswer(result: EfaResult<Pin>): BoxAnswer {
  return {
    received: result.records.length + result.rejects.length,
    keys: result.records.filter((p) => !isSharingVehicle(p)).map(pinKey),
    points: result.records.map((p) => p.coord),
  };
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

  // Confirming requests (a suspected silent cap, a probe of a branch answering full at every size):
  // counted as CoordInfo requests, never stored, never tiles of the run.
  const ask: AskBox = async (probe) => {
    try {
      return boxAnswer(await ctx.client.coordInfoBox(coordRequest(cfg, probe)));
    } catch (error) {
      if (isFatal(error)) throw error;
      ctx.log.debug(`coordInfo confirming request for ${probe.id} failed: ${redactText(errorText(error), ctx.secrets)}`);
      return undefined;
    }
  };
  const spatial = createSpatialCheck();
  // A first night (no tile planned from known pins) that answers nothing anywhere is no success.
  const firstNight = tiles.length > 0 && tiles.every((t) => t.known === undefined && t.depth === 0);
  let receivedTotal = 0;
  const answeredEmpty: { tile: Tile; attempts: number; durationMs: number }[] = [];

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
    const answer = boxAnswer(result);
    receivedTotal += answer.received;
    // A suspected silent cap is confirmed (or cleared) before this answer is judged by it.
    const { max, redo } = await ctx.capDetector.observe(tile, answer, cfg.maxPerRequest, ask);
    if (redo.length > 0) {
      ctx.log.info(`coordInfo: ${redo.length} tile(s) answered the server's silent cap of ${max} before it was confirmed: asking them again`);
      ctx.progress.addTotal(redo.length);
    }
    const verdict = judgeBoxAnswer(tile.bbox, result, max, `coordInfo tile ${tile.id}`);
    const done = { attempts: result.attempts, hits: verdict.received, durationMs: Date.now() - started };
    if (verdict.kind !== 'untrusted') ctx.splitMemory.observe(tile, verdict.received, verdict.kind === 'capped');
    if (verdict.kind === 'untrusted') {
      await ctx.transact((tx) => storeRejects(ctx, tx, tile.id, [...result.rejects, ...verdict.outside]));
      return [...redo, ...(await fail(tile, started, result.attempts, verdict.reason))];
    }
    let notSpatial = false;
    if (verdict.kind === 'capped') {
      const trusted = await spatial.judgeFull(tile, answer, max, ask);
      const children =
        trusted === 'untrusted'
          ? 'not-spatial'
          : splitTile(tile, result.records.map((h) => h.coord), {
              maxPerRequest: max,
              ...minTileOf(cfg),
              region: ctx.region,
              memory: ctx.splitMemory,
            });
      if (children !== 'too-small' && children !== 'not-spatial') {
        await ctx.transact(async (tx) => {
          await recordTiles(tx.kysely, runId, [tileRecord(tile, { status: 'split', ...done }), ...children.map(pendingRecord)]);
          failpoint('tile-commit');
        });
        ctx.stats.addUnit('coordInfo', 'split');
        ctx.progress.split(children.length);
        ctx.progress.unitDone();
        return [...redo, ...children];
      }
      // One line for every branch stopped as not spatial, at the end of the sweep, not one per tile.
      notSpatial = children === 'not-spatial';
      if (children === 'too-small') ctx.log.warn(`coordInfo tile ${tile.id} is capped at ${verdict.received} records and too small to split; some objects may be missing`);
      ctx.stats.capped.push({ operation: 'coordInfo', unit: tile.id, hits: verdict.received });
    }
    if (verdict.received === 0 && firstNight) answeredEmpty.push({ tile, attempts: result.attempts, durationMs: done.durationMs });
    const status = verdict.kind === 'capped' ? 'capped' : verdict.kind === 'incomplete' ? 'incomplete' : 'done';
    if (verdict.kind === 'incomplete') {
      ctx.log.warn(`coordInfo tile ${tile.id}: ${verdict.reason}; stored, but nothing in it is marked deleted`);
      ctx.stats.incomplete.push({ operation: 'coordInfo', unit: tile.id, reason: verdict.reason });
    }
    // Duplicate ids were resolved by the client (the same answer in any order keeps the same copy).
    // An answer that does not depend on its box says nothing about what lies there: none of it is stored.
    const owned = notSpatial ? [] : verdict.inside.filter((h) => ownsPoint(tile, h.coord, ctx.regionBBox) && inRegion(ctx.region, h.coord));
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
      return [...redo, ...(await fail(tile, started, result.attempts, `writing its rows failed: ${errorText(error)}`))];
    }
    ctx.stats.addUnit('coordInfo', status);
    ctx.progress.unitDone();
    return redo;
  });

  if (spatial.stopped > 0) {
    const note = `coordInfo answers are not spatial: ${spatial.evidence ?? 'boxes of every size answered full'}; ${spatial.stopped} branch(es) that answered full for several generations in a row were stopped as untrusted (recorded capped; their answers were not stored, and nothing in them is marked gone)`;
    ctx.log.warn(`${note}. Is the base URL a real EFA deployment, and does it honour boundingBox?`);
    ctx.stats.notes.push(note);
  }
  if (firstNight && receivedTotal === 0 && answeredEmpty.length > 0) {
    const region = 'bbox' in ctx.region ? `region.bbox ${JSON.stringify(ctx.region.bbox)}` : 'the region polygon';
    const note =
      `coordInfo answered no objects at all on a night planned without known pins (a first night, or --full; ${answeredEmpty.length} box(es), every answer empty): ` +
      `the region may be given in the wrong order; ${region} must be [minLon, minLat, maxLon, maxLat] in WGS84 degrees (GeoJSON positions [lon, lat]), ` +
      'and the deployment must serve objects there';
    ctx.log.warn(note);
    ctx.stats.notes.push(note);
    // Nothing is known there yet and nothing came back: the empty answers are kept, not trusted.
    await ctx.transact((tx) =>
      recordTiles(
        tx.kysely,
        runId,
        answeredEmpty.map((a) => tileRecord(a.tile, { status: 'incomplete', attempts: a.attempts, hits: 0, durationMs: a.durationMs, error: 'answered no objects, nothing known there' })),
      ),
    );
    ctx.stats.addUnit('coordInfo', 'done', -answeredEmpty.length);
    ctx.stats.addUnit('coordInfo', 'incomplete', answeredEmpty.length);
    for (const a of answeredEmpty) ctx.stats.incomplete.push({ operation: 'coordInfo', unit: a.tile.id, reason: 'answered no objects, nothing known there' });
  }
}
