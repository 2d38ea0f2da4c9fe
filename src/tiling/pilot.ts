/**
 * Night one by a pilot type (issue 17 point 7). A capped box answer in an unknown order says little
 * about where the rest of its objects lie, so today's splitter stays 2.5-3x above the floor on
 * worlds it did not see. But a job sweeps several object types and a box can be asked for one type
 * alone. Where types share a spatial law (shops, parking and stops all crowd into towns), one sparse
 * type swept first (the pilot, cheap because it is small) is a map of where the others are: their
 * tiles are planned from the pilot's pins with `planFromKnownPoints`, scaled by the others' ratio to
 * the pilot, which is measured on the tiles already answered and re-estimated block by block.
 * Whatever still caps is split by today's splitter, and every object is still proven by an
 * uncapped leaf of its own type filter. Where the first blocks show the types do not co-locate, the
 * rest falls back to today's splitter over the remaining blocks. Pure: no I/O.
 */
import { planFromKnownPoints } from './plan.js';
import { checkFill, checkPositive, checkPositiveInt } from './options.js';
import { containsClosed } from './geo.js';
import type { BBox, Point, Region, Tile } from './types.js';

/** Share of `max` a tile planned from pilot pins is sized for: below PLAN_FILL, since the ratio is an estimate. */
export const PILOT_FILL = 0.75;
/** Blocks the region is cut into, by pilot pins, for re-estimating the ratio as they are done. */
export const PILOT_BLOCKS = 6;
/**
 * Requests per floor of a block (`ceil(found / max)`) above which the types are taken not to co-locate
 * and the rest of that stratum falls back to today's splitter.
 */
export const FALLBACK_EFFICIENCY = 2;

export interface PilotCandidate<T extends string> {
  readonly type: T;
  /** Whether its answer over the whole region was capped (an uncapped type is already done). */
  readonly capped: boolean;
  /** `readCappedAnswer(...).estimatedTotal` of that answer: a rough size, good under distance order only. */
  readonly estimate: number;
}

/**
 * The pilot: the capped type that looks smallest, ties (answers in an order that shows no density)
 * broken by `prior`, the types in the order they are usually sparse (stops before parking before POIs).
 * Undefined when fewer than two types are capped: there is nothing to plan from a pilot.
 */
export function choosePilot<T extends string>(candidates: readonly PilotCandidate<T>[], prior: readonly T[]): T | undefined {
  const capped = candidates.filter((c) => c.capped);
  if (capped.length < 2) return undefined;
  const rank = (t: T): number => {
    const i = prior.indexOf(t);
    return i < 0 ? prior.length : i;
  };
  // Estimates within 25 % of each other are read as equal: a capped answer in id or random order
  // spans the whole box and every type then looks the size of `max`.
  const sorted = [...capped].sort((a, b) => {
    const close = Math.abs(a.estimate - b.estimate) <= 0.25 * Math.max(a.estimate, b.estimate);
    return close ? rank(a.type) - rank(b.type) : a.estimate - b.estimate;
  });
  return sorted[0]!.type;
}

/** Pins of `pins` (lon,lat pairs) inside the closed box, as pairs. */
export function pinsIn(pins: Float64Array, b: BBox): Float64Array {
  const out: number[] = [];
  for (let i = 0; i < pins.length; i += 2) if (containsClosed(b, pins[i]!, pins[i + 1]!)) out.push(pins[i]!, pins[i + 1]!);
  return Float64Array.from(out);
}

export interface PilotPlanOptions {
  readonly maxPerRequest: number;
  readonly minTileSizeDeg: number;
  readonly fill?: number;
  readonly blocks?: number;
}

/**
 * The blocks a stratum is swept in: a k-d partition of the region by the pilot's pins into about
 * `blocks` parts of equal pilot count, north-west first. Each block's tiles are planned with the
 * ratio measured on the blocks before it.
 */
export function pilotBlocks(region: Region, pilotPins: Float64Array, opts: PilotPlanOptions): Tile[] {
  const blocks = checkPositiveInt('blocks', opts.blocks ?? PILOT_BLOCKS);
  const n = pilotPins.length / 2;
  const per = Math.max(1, Math.ceil(n / blocks));
  return planFromKnownPoints(region, pilotPins, { maxPerRequest: per, fill: 1, minTileSizeDeg: opts.minTileSizeDeg });
}

/**
 * Tiles for a stratum inside one block, from the pilot pins there: each tile holds about
 * `fill × max / ratio` pilot pins, so about `fill × max` of the stratum where the two co-locate.
 * A block without pilot pins is one tile: whatever lies there is found by splitting it.
 */
export function planFromPilot(block: Tile, pilotPins: Float64Array, ratio: number, opts: PilotPlanOptions): Tile[] {
  const max = checkPositiveInt('maxPerRequest', opts.maxPerRequest);
  const r = checkPositive('ratio', ratio);
  const fill = checkFill('fill', opts.fill ?? PILOT_FILL);
  const inside = pinsIn(pilotPins, block.bbox);
  if (inside.length === 0) return [block];
  // planFromKnownPoints sizes tiles in whole pins; in pilot pins a tile's share is max / ratio.
  const perTile = Math.max(1, Math.round(max / r));
  return planFromKnownPoints({ bbox: block.bbox }, inside, { maxPerRequest: perTile, fill, minTileSizeDeg: opts.minTileSizeDeg });
}

/**
 * The stratum's ratio to the pilot, from the blocks done: objects found over pilot pins in the same
 * blocks. Before any block is done, `prior` (from a few small tiles) stands in.
 */
export class RatioEstimate {
  #found = 0;
  #pilot = 0;
  constructor(private readonly prior: number) {
    checkPositive('prior', prior);
  }
  observe(found: number, pilotPins: number): void {
    this.#found += found;
    this.#pilot += pilotPins;
  }
  get value(): number {
    // A handful of pilot pins says little: the prior weighs as much as 20 of them until then.
    const w = 20;
    return Math.max(1e-3, (this.#found + this.prior * w) / (this.#pilot + w));
  }
}

/** Pins per pair array as points (for splitters that take hits). */
export function pairsToPoints(pairs: Float64Array): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push({ lon: pairs[i]!, lat: pairs[i + 1]! });
  return out;
}

export interface TypedHit<T extends string> {
  readonly lon: number;
  readonly lat: number;
  readonly type: T;
}

export interface PilotVerdict<T extends string> {
  /** The type to sweep first, or undefined: keep today's splitter (the answer shows no type to pilot by). */
  readonly pilot: T | undefined;
  /** Objects of the other types per pilot object in the sample. */
  readonly ratio: number;
  /**
   * Dissimilarity of where the pilot and the rest lie in the sample (half the summed difference of
   * their shares per cell, 0 = same law, 1 = apart); NaN when there was no pilot to test.
   */
  readonly dissimilarity: number;
  readonly reason: string;
}

/** Pilot hits a sample needs before its spread says anything. */
export const MIN_PILOT_HITS = 12;
/** Dissimilarity above which the types are taken not to co-locate (measured on the bench worlds). */
export const MAX_DISSIMILARITY = 0.25;

/**
 * Whether to sweep by a pilot, read from the first (unfiltered, capped) answer of the night, whose
 * records carry their type: the sparsest type with enough hits is the candidate, and it is taken
 * only when it lies where the rest lies (per cell of a 3 x 3 grid over the hits). Reading the answer
 * costs no request, so a world whose types do not co-locate pays nothing for the test and keeps
 * today's splitter. An answer cut in id or insertion order is a biased sample; it then tends to look
 * dissimilar, which only keeps today's splitter.
 */
export function pilotVerdict<T extends string>(hits: readonly TypedHit<T>[], prior: readonly T[]): PilotVerdict<T> {
  const counts = new Map<T, number>();
  for (const h of hits) counts.set(h.type, (counts.get(h.type) ?? 0) + 1);
  const rank = (t: T): number => (prior.indexOf(t) < 0 ? prior.length : prior.indexOf(t));
  const candidates = [...counts].filter(([, n]) => n >= MIN_PILOT_HITS && n <= hits.length / 2).sort((a, b) => a[1] - b[1] || rank(a[0]) - rank(b[0]));
  const none = (reason: string): PilotVerdict<T> => ({ pilot: undefined, ratio: NaN, dissimilarity: NaN, reason });
  if (counts.size < 2) return none('one type in the answer');
  const pick = candidates[0];
  if (pick === undefined) return none(`no type with ${MIN_PILOT_HITS}+ hits and at most half of them`);
  const [pilot, n] = pick;
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  for (const h of hits) {
    minLon = Math.min(minLon, h.lon);
    maxLon = Math.max(maxLon, h.lon);
    minLat = Math.min(minLat, h.lat);
    maxLat = Math.max(maxLat, h.lat);
  }
  const G = 3;
  const cell = (h: TypedHit<T>): number => {
    const cx = Math.min(G - 1, Math.floor(((h.lon - minLon) / Math.max(1e-9, maxLon - minLon)) * G));
    const cy = Math.min(G - 1, Math.floor(((h.lat - minLat) / Math.max(1e-9, maxLat - minLat)) * G));
    return cy * G + cx;
  };
  const p = new Array<number>(G * G).fill(0);
  const q = new Array<number>(G * G).fill(0);
  for (const h of hits) (h.type === pilot ? p : q)[cell(h)]!++;
  const rest = hits.length - n;
  let d = 0;
  for (let c = 0; c < G * G; c++) d += Math.abs(p[c]! / n - q[c]! / rest);
  d /= 2;
  const ratio = rest / n;
  if (d > MAX_DISSIMILARITY) return { pilot: undefined, ratio, dissimilarity: d, reason: `${pilot} does not lie where the rest lies (dissimilarity ${d.toFixed(2)})` };
  return { pilot, ratio, dissimilarity: d, reason: `${pilot} co-locates with the rest (dissimilarity ${d.toFixed(2)}, ratio ${ratio.toFixed(1)})` };
}
