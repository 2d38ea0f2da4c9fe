/**
 * The real CoordInfo box step (src/sweep) against a fake server in memory, to count requests
 * honestly and check completeness. No I/O, no vitest (bench/tiling.ts reuses it).
 */
import { METRES_PER_DEG_LAT, makeTile, metresPerDegLon, snapEdge } from '../../src/tiling/geo.js';
import {
  bboxAreaM2,
  coverRegion,
  createSplitMemory,
  estimateTileCount,
  inRegion,
  ownsPoint,
  planFromKnownPoints,
  readCappedAnswer,
  regionBBox,
  splitTile,
  tileIntersectsRegion,
} from '../../src/tiling/index.js';
import { PRECISION_MIN_TILE_DEG } from '../../src/tiling/index.js';
import type { BBox, Point, Region, SplitMemory, Tile } from '../../src/tiling/index.js';
import type { EfaResult, Pin } from '../../src/efa/index.js';
import { createBoxStep, sweepBoxes, type BoxSink } from '../../src/sweep/index.js';
import type { Logger } from '../../src/util/log.js';
export * from './harness-worlds.js';
import { pointAt, queryBox, rng, type Order, type World } from './harness-worlds.js';

/** Splits one capped tile; `memory` is the sweep's own, already fed this tile's answer. */
export type Splitter = (tile: Tile, hits: Point[], memory: SplitMemory) => Tile[] | 'too-small';

export interface Answered {
  readonly tile: Tile;
  readonly hits: readonly number[];
  /** Capped and too small to split: its answer is kept but known to be incomplete. */
  readonly capped: boolean;
}

export interface SweepResult {
  /** Requests for tiles of the sweep (and `alreadySpent`): what the bench holds against the floor. */
  readonly requests: number;
  readonly cappedRequests: number;
  /** Tiles whose answers stand for the region: uncapped leaves and too-small capped tiles. */
  readonly leaves: readonly Answered[];
  /** Confirming requests the real step sent besides (a suspected silent cap, a spatial probe). */
  readonly confirming: number;
}

/**
 * How the sweep works through its tiles: the real loop (`sweepBoxes`, src/sweep) with its
 * `concurrency` requests in flight, the newest tile first (a split's first child first), and each
 * answer handled when it arrives, with the others still out. The fake network answers in the order
 * the requests were sent, or, with `shuffle`, in an order drawn from that seed (servers answer small
 * boxes faster than big ones, and networks reorder): request counts may change with it, completeness
 * must not.
 */
export interface QueueOptions {
  readonly concurrency?: number;
  readonly shuffle?: number;
}

/** The sweep's default concurrency (`rateLimit.concurrency` in a job). */
export const DEFAULT_CONCURRENCY = 4;

/** A logger that says nothing: the harness counts, it does not report. */
const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The fake server's answer: the pins `queryBox` found, as the client would hand them over. */
function answerOf(w: World, found: readonly number[]): EfaResult<Pin> {
  const records = found.map((i): Pin => ({ type: 'STOP', id: String(i), name: '', coord: pointAt(w, i), motTypes: [], attrs: {} }));
  return { records, rejects: [], messages: [], status: 200, durationMs: 0, attempts: 1 };
}

/**
 * A network in memory whose answers arrive one at a time, in a chosen order: each is handed over
 * only once everything the previous one set off (its judgement, the requests it freed) has run.
 */
function fakeNetwork(pick: (() => number) | undefined) {
  const out: (() => void)[] = [];
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  return {
    send<T>(answer: T): Promise<T> {
      return new Promise<T>((resolve) => out.push(() => resolve(answer)));
    },
    async drive(sweeping: Promise<unknown>): Promise<void> {
      let over = false;
      sweeping.then(
        () => (over = true),
        () => (over = true),
      );
      for (;;) {
        await settle();
        if (over || out.length === 0) break;
        const at = pick === undefined ? 0 : Math.floor(pick() * out.length);
        out.splice(at, 1)[0]!();
      }
      await sweeping;
    },
  };
}

/** Request every tile through the real box step; split capped ones and request the children, as the sweep does. */
export async function sweep(
  w: World,
  start: readonly Tile[],
  split: Splitter,
  max: number,
  order: Order = 'distance',
  alreadySpent = 0,
  queue: QueueOptions = {},
): Promise<SweepResult> {
  const concurrency = queue.concurrency ?? DEFAULT_CONCURRENCY;
  const network = fakeNetwork(queue.shuffle === undefined ? undefined : rng(queue.shuffle));
  const leaves: Answered[] = [];
  let cappedRequests = 0;
  const tilesOfSweep = new Set(start.map((t) => t.id));
  const step = createBoxStep({
    label: 'coordInfo',
    budget: { maxPerRequest: max, minTileSizeDeg: PRECISION_MIN_TILE_DEG, followDensity: false },
    region: w.region,
    split: (tile, hits, memory) => split(tile, hits, memory),
  });
  const sink: BoxSink = {
    take(tile, outcome) {
      if (outcome.kind === 'failed') throw new Error(`the fake server's answer for ${tile.id} failed: ${outcome.error}`);
      if (outcome.kind === 'split') outcome.children.forEach((c) => tilesOfSweep.add(c.id));
      if (outcome.kind === 'split' || outcome.status === 'capped') cappedRequests++;
      if (outcome.kind === 'kept') leaves.push({ tile, hits: outcome.inside.map((p) => Number(p.id)), capped: outcome.status === 'capped' });
    },
  };
  // Tiles of the sweep go through the network's order; a confirming request (a box of a metre, or
  // two tiles' union) is answered at once, so the order the tiles' answers are handled in is the
  // queue's alone and request counts compare with every earlier measurement.
  const request = (tile: Tile): Promise<EfaResult<Pin>> => {
    const answer = answerOf(w, queryBox(w, tile.bbox, max, order));
    return tilesOfSweep.has(tile.id) ? network.send(answer) : Promise.resolve(answer);
  };
  const sweeping = sweepBoxes(start, request, step, sink, { concurrency, log: quiet });
  await network.drive(sweeping);
  const end = await sweeping;
  return { requests: alreadySpent + end.requests, cappedRequests, leaves, confirming: end.confirming };
}

export interface SplitParams {
  readonly max: number;
  readonly minTileSizeDeg: number;
  readonly fill?: number;
  readonly maxChildren?: number;
}

export function adaptiveSplitter(w: World, p: SplitParams): Splitter {
  return (tile, hits, memory) =>
    splitTile(tile, hits, {
      memory,
      maxPerRequest: p.max,
      minTileSizeDeg: p.minTileSizeDeg,
      ...(p.fill === undefined ? {} : { fill: p.fill }),
      ...(p.maxChildren === undefined ? {} : { maxChildren: p.maxChildren }),
      region: w.region,
    });
}

/** The adaptive splitter without the run's memory: each split sized from its own answer alone. */
export function answerOnlySplitter(w: World, p: SplitParams): Splitter {
  return (tile, hits) =>
    splitTile(tile, hits, {
      maxPerRequest: p.max,
      minTileSizeDeg: p.minTileSizeDeg,
      ...(p.fill === undefined ? {} : { fill: p.fill }),
      ...(p.maxChildren === undefined ? {} : { maxChildren: p.maxChildren }),
      region: w.region,
    });
}

/** Pins inside the closed box: what an uncapped answer for it would hold. */
export function countInBox(w: World, b: BBox): number {
  let n = 0;
  for (let i = 0; i < w.lon.length; i++) {
    const x = w.lon[i]!;
    const y = w.lat[i]!;
    if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]) n++;
  }
  return n;
}

/**
 * A diagnostic, not a strategy: the adaptive splitter told the true number of pins of every capped
 * tile, a count no server gives. Whatever night one still costs above the floor with it is the price
 * of where the cuts go (the shape an answer shows), not of how many pins a capped tile was taken to hold.
 */
export function trueCountSplitter(w: World, p: SplitParams): Splitter {
  const adaptive = adaptiveSplitter(w, p);
  return (tile, hits, memory) => {
    const truth = countInBox(w, tile.bbox);
    const told: SplitMemory = {
      observe: (t, received, capped) => memory.observe(t, received, capped),
      expectedTotal: (t) => memory.expectedTotal(t),
      recordSplit: (parent, estimate, children, patches) => memory.recordSplit(parent, estimate, children, patches),
      get unseenDensityRatio() {
        return memory.unseenDensityRatio;
      },
      sizeCappedTile: (t, fromAnswer, atLeast) => ({ ...memory.sizeCappedTile(t, fromAnswer, atLeast), total: truth }),
    };
    return adaptive(tile, hits, told);
  };
}

/** Mean share of `max` the uncapped leaves of a sweep hold (edge pins count for every tile returning them). */
export function meanLeafFill(r: SweepResult, max: number): number {
  const uncapped = r.leaves.filter((l) => !l.capped);
  if (uncapped.length === 0) return 0;
  return uncapped.reduce((s, l) => s + l.hits.length, 0) / (uncapped.length * max);
}

/** The baseline: four children at the midpoints, whatever the hits say. */
export function quadtreeSplitter(w: World, p: SplitParams): Splitter {
  return (tile) => {
    const [x0, y0, x1, y1] = tile.bbox;
    if (x1 - x0 <= p.minTileSizeDeg && y1 - y0 <= p.minTileSizeDeg) return 'too-small';
    const mx = snapEdge((x0 + x1) / 2);
    const my = snapEdge((y0 + y1) / 2);
    const boxes: BBox[] = [
      [x0, my, mx, y1],
      [mx, my, x1, y1],
      [x0, y0, mx, my],
      [mx, y0, x1, my],
    ];
    return boxes.filter((b) => tileIntersectsRegion(b, w.region)).map((b) => makeTile(b, tile.depth + 1, tile.id));
  };
}

/** One request over the whole region envelope, then its children; the probe is the root tile. */
export function coldStartRootSplit(w: World, split: Splitter, max: number, order: Order = 'distance', queue: QueueOptions = {}): Promise<SweepResult> {
  return sweep(w, coverRegion(w.region, { targetTiles: 1 }), split, max, order, 0, queue);
}

/** One probe over the region envelope sizes a grid (`estimateTileCount`), which is then swept. */
export async function coldStartProbeGrid(w: World, split: Splitter, max: number, fill = 0.8, order: Order = 'distance'): Promise<SweepResult> {
  const root = coverRegion(w.region, { targetTiles: 1 });
  const rb = regionBBox(w.region);
  const probe = queryBox(w, rb, max, order);
  if (probe.length < max) return { requests: 1, cappedRequests: 0, leaves: [{ tile: root[0]!, hits: probe, capped: false }], confirming: 0 };
  const reading = readCappedAnswer(rb, probe.map((i) => pointAt(w, i)));
  const n = estimateTileCount(reading.estimatedTotal, bboxAreaM2(rb), bboxAreaM2(rb), max, fill);
  return sweep(w, coverRegion(w.region, { targetTiles: n }), split, max, order, 1);
}

export interface Completeness {
  /** In-region pins. */
  readonly pins: number;
  /** In-region pins with no owner or several owners among the leaves (a partition defect). */
  readonly ownershipDefects: number;
  /** In-region pins not returned by their owner tile (lost by the sweep). */
  readonly missing: number;
  /** Of those, pins inside too-small capped tiles (expected losses, recorded as capped). */
  readonly missingInCapped: number;
  /** Pins returned by more than one leaf (shared edges): de-duplicated by ownership. */
  readonly returnedTwice: number;
}

export function checkCompleteness(w: World, r: SweepResult): Completeness {
  const rb = regionBBox(w.region);
  const n = w.lon.length;
  const owners = new Uint16Array(n);
  const returnedByOwner = new Uint8Array(n);
  const returnedCount = new Uint16Array(n);
  const ownerCapped = new Uint8Array(n);
  for (const leaf of r.leaves) {
    for (const i of leaf.hits) {
      returnedCount[i]!++;
      if (ownsPoint(leaf.tile, pointAt(w, i), rb)) returnedByOwner[i] = 1;
    }
  }
  let pins = 0;
  let ownershipDefects = 0;
  let missing = 0;
  let missingInCapped = 0;
  let returnedTwice = 0;
  for (let i = 0; i < n; i++) {
    const p = pointAt(w, i);
    if (!inRegion(w.region, p)) continue;
    pins++;
    let count = 0;
    for (const leaf of r.leaves) {
      if (ownsPoint(leaf.tile, p, rb)) {
        count++;
        if (leaf.capped) ownerCapped[i] = 1;
      }
    }
    owners[i] = count;
    if (count !== 1) ownershipDefects++;
    if (returnedByOwner[i] !== 1) {
      missing++;
      if (ownerCapped[i] === 1) missingInCapped++;
    }
    if (returnedCount[i]! > 1) returnedTwice++;
  }
  return { pins, ownershipDefects, missing, missingInCapped, returnedTwice };
}

/**
 * The pins a night saw, once each (by ownership), as lon,lat pairs for `planFromKnownPoints`. For a
 * polygon region this includes pins outside the polygon that tiles returned: the server counts them
 * towards `max`, so a plan that ignores them caps the tiles along the boundary (and around holes).
 */
export function foundPins(w: World, r: SweepResult): Float64Array {
  const rb = regionBBox(w.region);
  const out: number[] = [];
  for (const leaf of r.leaves) {
    for (const i of leaf.hits) {
      const p = pointAt(w, i);
      if (ownsPoint(leaf.tile, p, rb)) out.push(p.lon, p.lat);
    }
  }
  return Float64Array.from(out);
}

export function floorRequests(pins: number, max: number): number {
  return Math.max(1, Math.ceil(pins / max));
}

export async function nightTwo(
  w: World,
  known: Float64Array,
  split: Splitter,
  max: number,
  minTileSizeDeg: number,
  fill?: number,
  order: Order = 'distance',
  queue: QueueOptions = {},
): Promise<SweepResult & { planned: number }> {
  const plan = planFromKnownPoints(w.region, known, { maxPerRequest: max, minTileSizeDeg, ...(fill === undefined ? {} : { fill }) });
  return { ...(await sweep(w, plan, split, max, order, 0, queue)), planned: plan.length };
}
