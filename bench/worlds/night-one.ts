/**
 * Night one and night two of a typed world, counted with the harness's fake box search: today's
 * sweep (every type in one request, the adaptive splitter from the region box) and the pilot
 * (src/tiling/pilot.ts: where the first answer shows types that lie where one type lies, those are
 * planned from its pins; the rest is split as today). Both prove every object by an uncapped leaf of
 * a request that asks for its type.
 */
import { coverRegion, ownsPoint, regionBBox, type Region, type Tile } from '../../src/tiling/index.js';
import {
  FALLBACK_EFFICIENCY,
  MAX_DISSIMILARITY,
  PILOT_BLOCKS,
  PILOT_FILL,
  PILOT_PRIOR,
  RatioEstimate,
  blockFallsBack,
  pilotBlocks,
  pilotVerdict,
  planFromPilot,
  pinsIn,
} from '../../src/tiling/pilot.js';
import {
  adaptiveSplitter,
  coldStartRootSplit,
  floorRequests,
  foundPins,
  nightTwo,
  pointAt,
  queryBox,
  sweep,
  trueCountSplitter,
  type Order,
  type SweepResult,
  type World,
} from '../../test/tiling/harness.js';
import { allTypes, typesOf, type TypedWorld, type WorldType } from './index.js';

/** The pilot's knobs, for measuring them (defaults: src/tiling/pilot.ts). */
export interface PilotKnobs {
  readonly fill?: number;
  readonly blocks?: number;
  readonly fallbackEfficiency?: number;
  readonly maxDissimilarity?: number;
}

/** The minimum tile of the bench worlds (as bench/tiling.ts). */
export const MIN_TILE_DEG = 0.0005;
/** The order types are usually sparse in, for ties between pilot candidates: the nightly sweep's (src/tiling/pilot.ts). */
export const SPARSE_FIRST = PILOT_PRIOR as readonly WorldType[];

export interface NightFigures {
  readonly pins: number;
  readonly floor: number;
  readonly nightOne: number;
  readonly nightTwo: number;
  /** Objects of the world no uncapped leaf of their type proved (must be 0). */
  readonly unproven: number;
}

export interface PilotFigures extends NightFigures {
  readonly pilot: WorldType | undefined;
  /** Why the pilot was taken or not, and whether its planned stratum fell back to today's splitter after some blocks. */
  readonly verdict: string;
}

/** Objects of `w` (in its region) owned by no uncapped leaf that returned them. */
function unprovenIn(w: World, leaves: SweepResult['leaves']): number {
  const rb = regionBBox(w.region);
  const proven = new Uint8Array(w.lon.length);
  for (const l of leaves) {
    if (l.capped) continue;
    for (const i of l.hits) if (ownsPoint(l.tile, pointAt(w, i), rb)) proven[i] = 1;
  }
  return proven.reduce((n, v) => n + (v === 1 ? 0 : 1), 0);
}

/** Today: one request for every type, split from the region box; night two planned from its pins. */
export async function todayNights(tw: TypedWorld, order: Order): Promise<NightFigures> {
  const w = allTypes(tw);
  const p = { max: tw.max, minTileSizeDeg: MIN_TILE_DEG };
  const one = await coldStartRootSplit(w, adaptiveSplitter(w, p), tw.max, order);
  const two = await nightTwo(w, foundPins(w, one), adaptiveSplitter(w, p), tw.max, MIN_TILE_DEG, undefined, order);
  return {
    pins: w.lon.length,
    floor: floorRequests(w.lon.length, tw.max),
    // The step's confirming requests (a suspected silent cap, the spatial check) are CoordInfo requests too.
    nightOne: one.requests + one.confirming,
    nightTwo: two.requests,
    unproven: unprovenIn(w, one.leaves),
  };
}

/**
 * A diagnostic, not a strategy: today's night one with the splitter told the true number of pins of
 * every capped tile (a count no answer carries). What it still costs above the floor is the price of
 * where the cuts go; the rest of today's cost is the price of not knowing how many pins a capped tile
 * holds. Confirming requests counted as in `todayNights`.
 */
export async function toldCountsNightOne(tw: TypedWorld, order: Order): Promise<number> {
  const w = allTypes(tw);
  const r = await coldStartRootSplit(w, trueCountSplitter(w, { max: tw.max, minTileSizeDeg: MIN_TILE_DEG }), tw.max, order);
  return r.requests + r.confirming;
}

/** A world of several types: what one request filtering for all of them answers. */
function ofTypes(tw: TypedWorld, types: readonly WorldType[]): { world: World; types: readonly WorldType[] } {
  const pts = tw.points.filter((p) => types.includes(p.type));
  return {
    world: { name: `${tw.name} ${types.join('+')}`, region: { bbox: tw.bbox }, lon: Float64Array.from(pts, (q) => q.lon), lat: Float64Array.from(pts, (q) => q.lat) },
    types: pts.map((q) => q.type),
  };
}

/** The pins of one type a sweep found (each once, by ownership), as lon,lat pairs: answers carry each record's type. */
function typedPins(s: { world: World; types: readonly WorldType[] }, r: SweepResult, type: WorldType): Float64Array {
  const rb = regionBBox(s.world.region);
  const out: number[] = [];
  for (const l of r.leaves) {
    for (const i of l.hits) {
      const p = pointAt(s.world, i);
      if (s.types[i] === type && ownsPoint(l.tile, p, rb)) out.push(p.lon, p.lat);
    }
  }
  return Float64Array.from(out);
}

interface StratumResult {
  readonly requests: number;
  readonly leaves: SweepResult['leaves'];
  readonly verdict: string;
}

/** The co-located types together, planned block by block from the pilot's pins (type-filtered requests). */
async function sweepStratum(w: World, region: Region, pilotPins: Float64Array, prior: number, max: number, order: Order, knobs: PilotKnobs): Promise<StratumResult> {
  const opts = { maxPerRequest: max, minTileSizeDeg: MIN_TILE_DEG, fill: knobs.fill ?? PILOT_FILL, blocks: knobs.blocks ?? PILOT_BLOCKS };
  const split = adaptiveSplitter(w, { max, minTileSizeDeg: MIN_TILE_DEG });
  const rb = regionBBox(region);
  const ratio = new RatioEstimate(prior);
  const leaves: SweepResult['leaves'][number][] = [];
  let requests = 0;
  let fallback = false;
  let blocksPlanned = 0;
  for (const block of pilotBlocks(region, pilotPins, opts)) {
    const start: Tile[] = fallback ? [block] : planFromPilot(block, pilotPins, ratio.value, opts);
    const r = await sweep(w, start, split, max, order);
    requests += r.requests + r.confirming;
    leaves.push(...r.leaves);
    let found = 0;
    for (const l of r.leaves) for (const i of l.hits) if (ownsPoint(l.tile, pointAt(w, i), rb) && ownsPoint(block, pointAt(w, i), rb)) found++;
    ratio.observe(found, pinsIn(pilotPins, block.bbox).length / 2);
    if (!fallback) {
      blocksPlanned++;
      if (blockFallsBack(r.requests, found, max, knobs.fallbackEfficiency ?? FALLBACK_EFFICIENCY)) fallback = true;
    }
  }
  return { requests, leaves, verdict: fallback ? `fallback after ${blocksPlanned} blocks` : 'planned' };
}

/** Night one by the pilot where the first answer shows types that co-locate, else today's splitter; night two over all known pins. */
export async function pilotNights(tw: TypedWorld, order: Order, knobs: PilotKnobs = {}): Promise<PilotFigures> {
  const max = tw.max;
  const region: Region = { bbox: tw.bbox };
  const rb = regionBBox(region);
  const root = coverRegion(region, { targetTiles: 1 });
  const all = allTypes(tw);
  const split = (w: World) => adaptiveSplitter(w, { max, minTileSizeDeg: MIN_TILE_DEG });
  // The night's first request is today's: every type over the region; its records carry their type.
  const first = queryBox(all, rb, max, order);
  const verdict = pilotVerdict(first.map((i) => ({ lon: all.lon[i]!, lat: all.lat[i]!, type: tw.points[i]!.type })), SPARSE_FIRST, knobs.maxDissimilarity ?? MAX_DISSIMILARITY);
  const pins = tw.points.length;
  const floor = floorRequests(pins, max);
  if (verdict.pilot === undefined) {
    // Today's splitter from that same answer (the root is not asked twice): the figures are today's.
    const t = await todayNights(tw, order);
    return { ...t, pilot: undefined, verdict: `today's splitter: ${verdict.reason}` };
  }
  let requests = 1;
  let unproven = 0;
  // The pilot and the types that lie elsewhere are swept together, as today (one descent from the
  // region box, not one per stratum); the pilot's pins are read from that sweep's typed answers.
  const splitTypes = typesOf(tw).filter((t) => !verdict.planned.includes(t));
  const a = ofTypes(tw, splitTypes);
  const ar = await sweep(a.world, root, split(a.world), max, order);
  requests += ar.requests + ar.confirming;
  unproven += unprovenIn(a.world, ar.leaves);
  const aPins = foundPins(a.world, ar);
  const pilotPins = typedPins(a, ar, verdict.pilot);
  const w = ofTypes(tw, verdict.planned).world;
  const s = await sweepStratum(w, region, pilotPins, verdict.ratio, max, order, knobs);
  requests += s.requests;
  unproven += unprovenIn(w, s.leaves);
  const strata = [aPins, foundPins(w, { requests: s.requests, cappedRequests: 0, confirming: 0, leaves: s.leaves })];
  // Night two knows every pin: one plan over all of them and unfiltered requests, as today. Planning
  // each stratum apart would pay a rounded-up tile per stratum (1.25x on a floor of 8).
  const known = Float64Array.from(strata.flatMap((x) => [...x]));
  const two = (await nightTwo(all, known, split(all), max, MIN_TILE_DEG, undefined, order)).requests;
  return { pins, floor, nightOne: requests, nightTwo: two, unproven, pilot: verdict.pilot, verdict: `${verdict.reason}; ${s.verdict}; ${splitTypes.join('+')} split as today` };
}
