/**
 * Night one by a pilot type in the nightly CoordInfo sweep (`sweeps.coord.pilot: 'auto'`; the pure
 * rules are src/tiling/pilot.ts, shared with the bench). On a night planned without known pins, the
 * region box is asked as today; its answer's records carry their type, and `pilotVerdict` reads it.
 * Where no type lies where a sparse type lies, nothing changes: the root is split as today. Else the
 * root is recorded split into two strata, each a tile of the region box asking for its types only
 * (efa.run_tiles.types, sql/018):
 * - the pilot and the types that lie elsewhere, swept by today's splitter from the region box;
 * - the types that lie where the pilot lies (the planned stratum), swept in blocks of equal pilot
 *   count (`pilotBlocks`), each block's tiles planned from the pilot pins this run stored, scaled by
 *   the ratio measured on the blocks before it (`planFromPilot`, `RatioEstimate`); a block costing
 *   more than FALLBACK_EFFICIENCY times its floor makes the remaining blocks fall back to today's
 *   splitter. Whatever still caps is split as today.
 * Every tile goes through the one box step and the nightly sink (a transaction per tile): a done tile
 * of a stratum proves absence only for its types.
 *
 * Resume: what the sweep decided is in the ledger, written in the same transaction as the decision.
 * The root's split records both strata's tiles as pending; the planned stratum's tile carries the
 * verdict in its `subject` (`pilot:<TYPE> ratio:<r>`). Planning the stratum records it split into its
 * blocks (pending), and planning a block records it split into its tiles (pending): none of these was
 * a request (attempts 0). A resumed run sweeps what is pending, and plans a block not planned at the
 * crash from the pilot's pins the run stored (efa.pins of the pilot type seen in this run).
 */
import { recordTiles } from '../../db/ledger.js';
import { coordTileRows, runPinCount, runPinPoints } from '../../db/plan-reads.js';
import { PARKING } from '../../efa/records.js';
import type { Pin } from '../../efa/index.js';
import { todaySplitter } from '../index.js';
import type { Job } from '../../job/index.js';
import { createSplitMemory, inStratum, tileBudgetOf, type Tile } from '../../tiling/index.js';
import { makeTile } from '../../tiling/geo.js';
import { PointList } from '../../util/point-list.js';
import { PILOT_PRIOR, RatioEstimate, blockFallsBack, pilotBlocks, pilotVerdict, pinsIn, planFromPilot, type TypedHit } from '../../tiling/pilot.js';
import { BACKLOG_ROWS, pendingRecord, sweepCoord, tileRecord } from './coord.js';
import { withBacklog, type Backlog } from './backlog.js';
import type { SweepContext } from './context.js';

type CoordSweep = NonNullable<Job['sweeps']['coord']>;

/** What the root's answer decided: the pilot, the two strata's types, the planned types' ratio to the pilot there. */
export interface Strata {
  readonly pilot: string;
  /** The pilot and the types that lie elsewhere: today's splitter. */
  readonly split: readonly string[];
  /** The types that lie where the pilot lies: planned from its pins. */
  readonly planned: readonly string[];
  readonly ratio: number;
}

/** Whether a job's coord sweep may run the pilot: not turned off, and no type ANY (its answers are not typed strata). */
export function pilotApplies(cfg: CoordSweep): boolean {
  return cfg.pilot !== 'off' && !cfg.types.includes('ANY');
}

/** The pin types a coord sweep asks for (efa.pins.type): its types, and PARKING with the parking box. */
export function sweptTypes(cfg: CoordSweep): string[] {
  return [...cfg.types, ...(cfg.parking ? [PARKING] : [])];
}

/** A stratum's request needs a filter block: a type of `types` (PARKING only rides along with the parking box). */
function askable(cfg: CoordSweep, types: readonly string[]): boolean {
  return types.some((t) => (cfg.types as readonly string[]).includes(t));
}

const sameTypes = (a: readonly string[] | undefined, b: readonly string[]): boolean =>
  a !== undefined && a.length === b.length && [...a].sort().every((t, i) => t === [...b].sort()[i]);

/** The verdict on the root's answer, as strata both of which can be asked; undefined: today's way. */
export function strataFor(cfg: CoordSweep, hits: readonly TypedHit<string>[]): { strata: Strata | undefined; reason: string } {
  const types = sweptTypes(cfg);
  // A stratum of PARKING alone has no type filter block to ask with: such candidates are not taken.
  const admissible = (_pilot: string, planned: readonly string[]): boolean => askable(cfg, planned) && askable(cfg, types.filter((t) => !planned.includes(t)));
  const verdict = pilotVerdict(hits.filter((h) => types.includes(h.type)), PILOT_PRIOR, undefined, admissible);
  if (verdict.pilot === undefined) return { strata: undefined, reason: verdict.reason };
  const split = types.filter((t) => !verdict.planned.includes(t));
  return { strata: { pilot: verdict.pilot, split, planned: [...verdict.planned], ratio: verdict.ratio }, reason: verdict.reason };
}

const MARK = /^pilot:(\S+) ratio:(\S+)$/;
const markOf = (s: Strata): string => `pilot:${s.pilot} ratio:${s.ratio}`;

/** The two strata's tiles: children of the root with its box, one per stratum. */
function strataTiles(root: Tile, s: Strata): { split: Tile; planned: Tile } {
  const child = makeTile(root.bbox, root.depth + 1, root.id);
  return { split: inStratum(child, s.split), planned: inStratum(child, s.planned) };
}

/**
 * The CoordInfo sweep of a night planned without known pins, with the pilot: `root` (the region box,
 * recorded pending) is asked as today; its answer decides whether the night goes by strata.
 */
export async function sweepCoordPilot(ctx: SweepContext, root: Tile): Promise<void> {
  const cfg = ctx.job.sweeps.coord;
  if (!cfg) return;
  let hits: TypedHit<string>[] = [];
  let strata: Strata | undefined;
  let decided = false;
  const today = todaySplitter({ budget: tileBudgetOf(cfg), region: ctx.region });
  await sweepCoord(ctx, [root], {
    firstNight: true,
    answered: (tile, result) => {
      if (tile.id === root.id) hits = result.records.map((h) => ({ lon: h.coord.lon, lat: h.coord.lat, type: h.type }));
    },
    split: (tile, seen, memory, max) => {
      if (tile.id === root.id && !decided) {
        decided = true;
        const v = strataFor(cfg, hits);
        strata = v.strata;
        ctx.log.info(`coordInfo: ${strata ? `night one by a pilot: ${v.reason}` : `no pilot (today's splitter): ${v.reason}`}`);
      }
      return tile.id === root.id && strata ? [] : today(tile, seen, memory, max);
    },
    alsoPending: (tile) => {
      if (tile.id !== root.id || !strata) return [];
      const t = strataTiles(root, strata);
      return [pendingRecord(t.split), { ...pendingRecord(t.planned), subject: markOf(strata) }];
    },
  });
  if (!strata) return;
  const decidedStrata = strata;
  const t = strataTiles(root, decidedStrata);
  // The pilot's pins as its stratum hands them to the writer: the planned stratum is cut from them without reading
  // them back (a resumed run reads them from efa.pins, runPinPoints).
  const pilot = decidedStrata.pilot;
  const pilotPins = new PointList();
  // One backlog for the pilot's stratum and every block: each sweep's rows are written while the
  // next one asks, where a wait for its last commit left the writer or the requests idle in turn
  // (docs/benchmarks.md). Plans count the pins handed off, which are known when a sweep returns.
  await withBacklog(BACKLOG_ROWS, async (writes) => {
    await sweepCoord(ctx, [t.split], {
      firstNight: false,
      splitMemory: createSplitMemory(),
      writes,
      handed: (_tile, pins) => {
        for (const p of pins) if (p.type === pilot) pilotPins.push(p.coord.lon, p.coord.lat);
      },
    });
    await sweepPlanned(ctx, cfg, t.planned, decidedStrata, { blocks: undefined, pending: [], pilotPins: pilotPins.points(), writes });
  });
}

interface PlannedState {
  /** The stratum's blocks as recorded, with whether each was planned (or swept) before a crash; undefined: not cut yet. */
  readonly blocks: { tile: Tile; started: boolean }[] | undefined;
  /** Pending tiles of the stratum left by a crash, below its blocks: swept first. */
  readonly pending: readonly Tile[];
  /** The pilot's pins as this process handed them to the writer; undefined (a resumed run): read from efa.pins. */
  readonly pilotPins?: Float64Array;
  /** The backlog the blocks' writes share (sweepCoord's `writes`); undefined: each block settles its own. */
  readonly writes?: Backlog;
}

/** The planned stratum: cut into blocks by the pilot's pins, each block planned from them and swept in turn. */
async function sweepPlanned(ctx: SweepContext, cfg: CoordSweep, stratum: Tile, s: Strata, state: PlannedState): Promise<void> {
  const budget = tileBudgetOf(cfg);
  const max = budget.maxPerRequest;
  const types = stratum.types ?? s.planned;
  const { transact, run, log } = ctx;
  if (state.pending.length > 0) await sweepCoord(ctx, state.pending, { firstNight: false, splitMemory: createSplitMemory() });
  const pilotPins = state.pilotPins ?? (await runPinPoints(ctx.db.kysely, ctx.run, s.pilot));
  let blocks = state.blocks;
  if (blocks === undefined) {
    if (pilotPins.length === 0) {
      // The pilot's stratum stored none of its pins: nothing to plan from; the stratum is swept as today.
      log.info(`coordInfo: no ${s.pilot} pins to plan ${s.planned.join('+')} from: swept as today`);
      await sweepCoord(ctx, [stratum], { firstNight: false, splitMemory: createSplitMemory() });
      return;
    }
    const cut = pilotBlocks(ctx.region, pilotPins, budget).map((b) => inStratum(makeTile(b.bbox, stratum.depth + 1, stratum.id), types));
    await transact((tx) =>
      recordTiles(tx.kysely, run.runId, [tileRecord(stratum, { status: 'split', attempts: 0, hits: 0, durationMs: 0 }), ...cut.map(pendingRecord)]),
    );
    blocks = cut.map((tile) => ({ tile, started: false }));
  }
  log.info(`coordInfo: ${s.planned.join('+')} in ${blocks.length} block(s) planned from ${pilotPins.length / 2} ${s.pilot} pins`);
  const ratio = new RatioEstimate(s.ratio);
  let fallback = false;
  for (const { tile: block, started } of blocks) {
    const pilotInside = pinsIn(pilotPins, block.bbox).length / 2;
    if (started) {
      // Planned before the crash: its share of the ratio is what the run stored there (read once
      // every write handed off before is in).
      await state.writes?.settle();
      ratio.observe(await runPinCount(ctx.db.kysely, ctx.run, s.planned, block.bbox), pilotInside);
      continue;
    }
    let tiles: Tile[] = [block];
    if (!fallback) {
      const plan = planFromPilot(block, pilotPins, ratio.value, budget);
      if (plan.length > 1 || plan[0]?.bbox.some((x, i) => x !== block.bbox[i])) {
        tiles = plan.map((p) => inStratum(makeTile(p.bbox, block.depth + 1, block.id), types));
        await transact((tx) =>
          recordTiles(tx.kysely, run.runId, [tileRecord(block, { status: 'split', attempts: 0, hits: 0, durationMs: 0 }), ...tiles.map(pendingRecord)]),
        );
      }
    }
    let found = 0;
    const end = await sweepCoord(ctx, tiles, {
      firstNight: false,
      splitMemory: createSplitMemory(),
      ...(state.writes ? { writes: state.writes } : {}),
      handed: (_tile, pins: readonly Pin[]) => void (found += pins.filter((p) => s.planned.includes(p.type)).length),
    });
    ratio.observe(found, pilotInside);
    if (!fallback && blockFallsBack(end.requests, found, max)) {
      fallback = true;
      log.info(`coordInfo: a block of ${s.planned.join('+')} cost ${end.requests} requests for ${found} pins: the remaining blocks are split as today`);
    }
  }
}

/**
 * A resumed night of a job with the pilot. Returns false when the run's ledger shows no pilot to
 * resume (a night planned from known pins, a root split as today): the caller sweeps what is pending.
 */
export async function resumeCoordPilot(ctx: SweepContext, pending: readonly Tile[]): Promise<boolean> {
  const cfg = ctx.job.sweeps.coord;
  if (!cfg) return false;
  const rows = await coordTileRows(ctx.db.kysely, ctx.run.runId);
  const asTile = (r: (typeof rows)[number]): Tile => ({ id: r.id, bbox: r.bbox, depth: r.depth, ...(r.parentId ? { parentId: r.parentId } : {}), ...(r.types ? { types: r.types } : {}) });
  const markRow = rows.find((r) => r.subject !== null && MARK.test(r.subject));
  if (markRow === undefined) {
    // Killed before the root's answer was kept (or it failed): the night starts afresh, with the pilot.
    const only = pending[0];
    const unstarted = rows.length === 1 && pending.length === 1 && only !== undefined && only.depth === 0 && only.known === undefined && only.types === undefined;
    if (!unstarted) return false;
    await sweepCoordPilot(ctx, only);
    return true;
  }
  const m = MARK.exec(markRow.subject ?? '')!;
  const planned = markRow.types ?? [];
  const stratum = asTile(markRow);
  const types = sweptTypes(cfg);
  const s: Strata = { pilot: m[1]!, planned, split: types.filter((t) => !planned.includes(t)), ratio: Number(m[2]) };
  ctx.log.info(`coordInfo: resuming night one by the pilot ${s.pilot} (${s.planned.join('+')} planned from its pins)`);
  const ofPlanned = (t: Tile): boolean => sameTypes(t.types, planned);
  // The pilot's stratum first (the planned one reads its pins), then the planned stratum.
  const others = pending.filter((t) => !ofPlanned(t));
  if (others.length > 0) await sweepCoord(ctx, others, { firstNight: false, splitMemory: createSplitMemory() });
  // Cut into blocks: recorded split without a request. Asked as a tile (no pilot pins to plan from): answered.
  const cut = markRow.status === 'split' && markRow.attempts === 0;
  const blockRows = cut ? rows.filter((r) => r.parentId === stratum.id) : [];
  // A block not planned yet is planned below; a failed one (asked as a tile) is asked again with what is pending.
  const unplanned = new Set(blockRows.filter((r) => r.status === 'pending').map((r) => r.id));
  const below = pending.filter((t) => ofPlanned(t) && t.id !== stratum.id && !unplanned.has(t.id));
  if (markRow.status === 'pending') {
    await sweepPlanned(ctx, cfg, stratum, s, { blocks: undefined, pending: [] });
  } else if (!cut) {
    // The stratum was asked as a tile (no pilot pins to plan from): what is left of it is pending (or failed).
    const left = pending.filter(ofPlanned);
    if (left.length > 0) await sweepCoord(ctx, left, { firstNight: false, splitMemory: createSplitMemory() });
  } else {
    await sweepPlanned(ctx, cfg, stratum, s, {
      blocks: blockRows.map((r) => ({ tile: asTile(r), started: r.status !== 'pending' })),
      pending: below,
    });
  }
  return true;
}
