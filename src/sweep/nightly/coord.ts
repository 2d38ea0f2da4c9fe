import { recordTiles, type TileRecord } from '../../db/ledger.js';
import type { CoordInfoBoxOptions, EfaResult, Pin } from '../../efa/index.js';
import { pins, sharingStations, toPinRow } from '../../relations/index.js';
import { mergeRows } from '../../db/merge.js';
import { isSharingVehicle } from '../../relations/pins.js';
import { PARKING } from '../../efa/records.js';
import { createBoxStep, sweepBoxes, type BoxSink, type BoxSweepEnd, type Splitter, type TileOutcome } from '../index.js';
import type { Job } from '../../job/index.js';
import { tileBudgetOf, type SplitMemory, type Tile } from '../../tiling/index.js';
import { failpoint } from '../../util/failpoint.js';
import { errorText, isFatal } from '../../errors.js';
import { withBacklog, type Backlog } from './backlog.js';
import { ownedStationRows, withStationRejects } from './stations.js';
import { keepMessages, storeRejects, type SweepContext } from './context.js';
import { redactText } from '../../util/redact.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/**
 * The CoordInfo request of one tile: a filter block per type the tile asks for (a pilot sweep's
 * stratum: its types only, pin types as efa.pins.type holds them; else every type of the job), the
 * parking box parameters only when it asks for PARKING (or for every type), MOT filters only on the
 * stop block.
 */
export function coordRequest(cfg: CoordSweep, tile: Tile): CoordInfoBoxOptions {
  const types = tile.types === undefined ? cfg.types : cfg.types.filter((t) => tile.types!.includes(t));
  return {
    bbox: [...tile.bbox],
    filters: types.map((type) => ({
      type,
      // MOT filters only mean something for stop blocks.
      ...(type === 'STOP' && cfg.inclMOT ? { inclMOT: cfg.inclMOT } : {}),
      ...(type === 'STOP' && cfg.exclMOT ? { exclMOT: cfg.exclMOT } : {}),
    })),
    max: cfg.maxPerRequest,
    ...(cfg.parking && (tile.types === undefined || tile.types.includes(PARKING))
      ? {
          parkingBBox: [...tile.bbox],
          parkingObjectType: cfg.parking.objectTypes,
          parkObjInfo: cfg.parking.info,
          parkObjInfoRealtime: cfg.parking.realtime,
        }
      : {}),
  };
}

export function tileRecord(tile: Tile, rest: Omit<TileRecord, 'operation' | 'tileId' | 'parentId' | 'depth' | 'bbox'>): TileRecord {
  return { operation: 'coordInfo', tileId: tile.id, parentId: tile.parentId, depth: tile.depth, bbox: tile.bbox, types: tile.types, ...rest };
}

/** A planned tile; `hits` holds what the plan knew in it until the tile is fetched (a resume reads it back). */
export const pendingRecord = (tile: Tile): TileRecord => tileRecord(tile, { status: 'pending', attempts: 0, hits: tile.known ?? 0, durationMs: 0 });

/**
 * Rows of kept tiles handed to the writer and not yet committed, at most (one tile however large
 * when none wait): enough for the writer's next transaction to find a full batch waiting, few
 * enough to keep a large run's memory bounded.
 */
export const BACKLOG_ROWS = 16_000;

/** What the night-one pilot (src/sweep/nightly/pilot.ts) adds to one sweep; a plain night gives none of it. */
export interface CoordSweepOptions {
  /** Whether the night is planned without known pins (the all-empty check); default: every tile a root without known pins. */
  readonly firstNight?: boolean;
  /** The sweep's own split memory (a stratum's); default the run's. */
  readonly splitMemory?: SplitMemory;
  /** Cuts a capped tile instead of today's splitter (the pilot reads the root's answer here). */
  readonly split?: Splitter;
  /** Every answer, before it is judged. */
  readonly answered?: (tile: Tile, result: EfaResult<Pin>) => void;
  /** Records written in the same transaction as `tile`'s split (a pilot's strata, pending). */
  readonly alsoPending?: (tile: Tile) => readonly TileRecord[];
  /**
   * The pins a kept tile hands to the writer (owned by it, sharing vehicles aside), before they
   * commit: what a plan counts is known once the sweep returns, while its writes may go on.
   */
  readonly handed?: (tile: Tile, pins: readonly Pin[]) => void;
  /**
   * The writes' backlog of a caller that runs sweeps one after another (the pilot's strata and
   * blocks): the sweep returns once its requests are answered and its rows handed off, and the
   * next one asks while they are written; the caller settles it. Default: the sweep's own, settled
   * before it returns.
   */
  readonly writes?: Backlog;
}

/**
 * CoordInfo over the tiles, through the one box step (src/sweep): this sweep brings its sink,
 * durable writes through the run's one writer. A split tile is marked split in the same transaction
 * that records its children as pending, before they are asked; a kept tile's owned pins, its
 * rejects and its record commit together, after its request slot was freed (a bounded backlog);
 * a failed tile is recorded with its reason. The sweep returns once every write of it is committed. Only `done` tiles delete. Sharing vehicles are the
 * snapshot sweep's time series: counted, not stored as pins. `tiles` must already be recorded as pending.
 */
export async function sweepCoord(ctx: SweepContext, tiles: readonly Tile[], o: CoordSweepOptions = {}): Promise<BoxSweepEnd> {
  const cfg = ctx.job.sweeps.coord;
  if (!cfg) return { requests: 0, confirming: 0 };
  ctx.progress.phase('coordInfo');
  ctx.progress.addTotal(tiles.length);
  const runId = ctx.run.runId;
  const step = createBoxStep({
    label: 'coordInfo',
    budget: tileBudgetOf(cfg),
    region: ctx.region,
    regionBBox: ctx.regionBBox,
    secrets: ctx.secrets,
    capDetector: ctx.capDetector,
    splitMemory: o.splitMemory ?? ctx.splitMemory,
    spatialCheck: ctx.spatialCheck,
    ...(o.split ? { split: o.split } : {}),
  });
  // A first night (no tile planned from known pins) that answers nothing anywhere is no success.
  const firstNight = o.firstNight ?? (tiles.length > 0 && tiles.every((t) => t.known === undefined && t.depth === 0));
  let receivedTotal = 0;
  const answeredEmpty: { tile: Tile; attempts: number; durationMs: number }[] = [];

  // Takes the sweep's answers: rows are handed to `writes` and the request slot freed (BACKLOG_ROWS).
  const answerAll = async (writes: Backlog): Promise<BoxSweepEnd> => {
    const recordFailed = async (tile: Tile, startedAt: number, attempts: number, error: string): Promise<void> => {
      await ctx.transact((tx) => recordTiles(tx.kysely, runId, [tileRecord(tile, { status: 'failed', attempts, hits: 0, durationMs: Date.now() - startedAt, error })]));
      ctx.stats.addUnit('coordInfo', 'failed');
      ctx.progress.unitDone(true);
    };
    const take = async (tile: Tile, outcome: TileOutcome, startedAt: number): Promise<void> => {
      receivedTotal += outcome.received;
      if (outcome.kind === 'failed') {
        if (outcome.rejects.length > 0) await ctx.transact((tx) => storeRejects(ctx, tx, tile.id, outcome.rejects));
        return recordFailed(tile, startedAt, outcome.attempts, outcome.error);
      }
      const done = { attempts: outcome.attempts, hits: outcome.received, durationMs: Date.now() - startedAt };
      if (outcome.kind === 'split') {
        await ctx.transact(async (tx) => {
          await recordTiles(tx.kysely, runId, [tileRecord(tile, { status: 'split', ...done }), ...outcome.children.map(pendingRecord), ...(o.alsoPending?.(tile) ?? [])]);
          failpoint('tile-commit');
        });
        ctx.stats.addUnit('coordInfo', 'split');
        ctx.progress.split(outcome.children.length);
        ctx.progress.unitDone();
        return;
      }
      if (outcome.status === 'capped') ctx.stats.capped.push({ operation: 'coordInfo', unit: tile.id, hits: outcome.received });
      if (outcome.received === 0 && firstNight) answeredEmpty.push({ tile, attempts: outcome.attempts, durationMs: done.durationMs });
      if (outcome.status === 'incomplete') ctx.stats.incomplete.push({ operation: 'coordInfo', unit: tile.id, reason: outcome.reason ?? '' });
      // Duplicate ids were resolved by the client (the same answer in any order keeps the same copy).
      const stored = outcome.owned.filter((h) => !isSharingVehicle(h));
      const rows = stored.map(toPinRow);
      ctx.stats.vehiclesNotStored += outcome.owned.length - rows.length;
      const stations = ownedStationRows(tile, outcome, ctx);
      o.handed?.(tile, stored);
      // The request slot is free once the rows are handed off; the one writer commits in the order
      // it was given, so a split's record (awaited above) still commits before its children's rows.
      await writes.add(rows.length + stations.length, async () => {
        try {
          // Handed to the writer before the tile's record: both commit in one transaction, or the
          // stations first (a tile found pending again on resume merges them again, unchanged).
          await Promise.all([
            stations.length > 0 ? ctx.transact((tx) => mergeRows(tx, sharingStations, ctx.run, stations)) : undefined,
            ctx.transact.rows(pins, rows, { tile: tileRecord(tile, { status: outcome.status, ...done }), unit: tile.id, rejects: outcome.rejects }),
          ]);
        } catch (error) {
          if (isFatal(error)) throw error;
          const message = redactText(`writing its rows failed: ${errorText(error)}`, ctx.secrets);
          ctx.log.warn(`coordInfo tile ${tile.id} failed: ${message}`);
          return recordFailed(tile, startedAt, outcome.attempts, message);
        }
        ctx.stats.addUnit('coordInfo', outcome.status);
        ctx.progress.unitDone();
      });
    };
    const sink: BoxSink = {
      consequence: { incomplete: 'stored, but nothing in it is marked deleted' },
      answered(tile, result) {
        failpoint('request');
        keepMessages(ctx, result.messages);
        o.answered?.(tile, result);
      },
      redo: (again) => ctx.progress.addTotal(again.length),
      take,
    };
    return sweepBoxes(tiles, (tile) => ctx.client.coordInfoBox(coordRequest(cfg, tile)).then(withStationRejects), step, sink, {
      concurrency: ctx.job.rateLimit.concurrency,
      log: ctx.log,
      secrets: ctx.secrets,
    });
  };
  // Nothing of the sweep still writes once it returns or throws (its own failure is the one told),
  // unless a caller shares its backlog; a first night's empty check below counts committed tiles.
  const end = o.writes !== undefined && !firstNight ? await answerAll(o.writes) : await withBacklog(BACKLOG_ROWS, answerAll);

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
  return end;
}
