/**
 * Night one by a pilot type (issue 17 point 7). A capped box answer in an unknown order says little
 * about where the rest of its objects lie, so today's splitter stays 2.5-3x above the floor on
 * worlds it did not see. But a job sweeps several object types and a box can be asked for one type
 * alone. Where types share a spatial law (shops, parking and stops all crowd into towns), one sparse
 * type swept first (the pilot, cheap because it is small) is a map of where the others are: their
 * tiles are planned from the pilot's pins with `planFromKnownPoints`, scaled by the others' ratio to
 * the pilot, which is measured on the tiles already answered and re-estimated block by block.
 * Whatever still caps is split by today's splitter, and every object is still proven by an
 * uncapped leaf of its own type filter.
 *
 * Whether to do so is read from the night's first answer (`pilotVerdict`, no extra request): where no
 * type lies where another lies, nothing changes. The pilot is swept together with the types that lie
 * elsewhere, by today's splitter (one descent from the region box, not one per stratum), and its pins
 * are read from those typed answers; only the co-located types are planned, and a stratum whose first
 * blocks cost too much falls back to today's splitter for its remaining blocks.
 * On worlds whose types share one law this is 1.55-1.7x the floor under every answer order; on the
 * shared real worlds it gains under id order and on some worlds under distance and random, and is
 * never above today (bench --only worlds). Pure: no I/O.
 */
import { planFromKnownPoints } from './plan.js';
import { checkFill, checkPositive, checkPositiveInt } from './options.js';
import { containsClosed } from './geo.js';
import type { BBox, Region, Tile } from './types.js';

/**
 * Share of `max` a tile planned from pilot pins is sized for: below PLAN_FILL, since the ratio is an
 * estimate and the pilot's pins are few per tile. 0.8 measured best over the bench's shared and
 * generated worlds (0.75 and 0.9 each lose on one kind).
 */
export const PILOT_FILL = 0.8;
/** Blocks the region is cut into, by pilot pins, for re-estimating the ratio as they are done. */
export const PILOT_BLOCKS = 6;
/**
 * Requests per floor of a block (`ceil(found / max)`, plus one) above which the types are taken not
 * to co-locate after all, and the stratum's remaining blocks fall back to today's splitter. A block
 * has a floor of a few requests, so a tighter bound (2) fell back on noise.
 */
export const FALLBACK_EFFICIENCY = 2.5;

/**
 * Whether a block planned from pilot pins cost too much (more than FALLBACK_EFFICIENCY requests per
 * floor of what it found, plus one): the stratum's remaining blocks then fall back to today's splitter.
 */
export function blockFallsBack(requests: number, found: number, max: number, efficiency = FALLBACK_EFFICIENCY): boolean {
  return requests > efficiency * Math.max(1, Math.ceil(found / max)) + 1;
}

/** The order types are usually sparse in, for ties between pilot candidates (the bench's SPARSE_FIRST). */
export const PILOT_PRIOR: readonly string[] = ['STOP', 'SHARING', 'BUS_POINT', 'PARKING', 'POI_POINT'];

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

export interface TypedHit<T extends string> {
  readonly lon: number;
  readonly lat: number;
  readonly type: T;
}

export interface PilotVerdict<T extends string> {
  /** The type to sweep first, or undefined: keep today's splitter (the answer shows no type to pilot by). */
  readonly pilot: T | undefined;
  /** The types planned from the pilot's pins: those that lie where it lies. */
  readonly planned: readonly T[];
  /** Objects of the planned types per pilot object in the sample. */
  readonly ratio: number;
  /** Request cost the sample predicts, as a multiple of the floor (today's splitter counts as COST_SPLIT). */
  readonly predictedCost: number;
  readonly reason: string;
}

/** Pilot hits a sample needs before its spread says anything. */
export const MIN_PILOT_HITS = 12;
/** Dissimilarity above which a type is taken not to lie where the pilot lies (measured on the bench worlds). */
export const MAX_DISSIMILARITY = 0.25;
/** What today's splitter costs per floor on worlds it did not see, and what a plan from a co-located pilot costs. */
export const COST_SPLIT = 2.6;
export const COST_PLANNED = 1.35;
/** The pilot is taken only when it predicts at least this share less than today's splitter. */
export const MIN_GAIN = 0.1;

const GRID = 3;

/** Half the summed difference of two types' shares per cell: 0 = the same law, 1 = apart. */
function dissimilarity(a: readonly number[], b: readonly number[]): number {
  const na = a.reduce((x, y) => x + y, 0);
  const nb = b.reduce((x, y) => x + y, 0);
  if (na === 0 || nb === 0) return 1;
  let d = 0;
  for (let c = 0; c < a.length; c++) d += Math.abs(a[c]! / na - b[c]! / nb);
  return d / 2;
}

/**
 * Whether to sweep by a pilot, read from the night's first (unfiltered, capped) answer, whose
 * records carry their type; reading it costs no request. Each type with enough hits is tried as the
 * pilot: the other types that lie where it lies (per cell of a 3 x 3 grid over the hits) would be
 * planned from its pins, the pilot and the rest split together as today. The candidate whose predicted cost is lowest is
 * taken if it beats today's splitter by MIN_GAIN; else nothing changes. An answer cut in id or
 * insertion order is a biased sample, where types tend to look apart: that only keeps today's way.
 */
export function pilotVerdict<T extends string>(
  hits: readonly TypedHit<T>[],
  prior: readonly T[],
  maxDissimilarity = MAX_DISSIMILARITY,
  /** Whether the strata of a candidate can be swept at all (the nightly sweep: each needs a type filter block); default every one. */
  admissible?: (pilot: T, planned: readonly T[]) => boolean,
): PilotVerdict<T> {
  const none = (reason: string): PilotVerdict<T> => ({ pilot: undefined, planned: [], ratio: NaN, predictedCost: COST_SPLIT, reason });
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  for (const h of hits) {
    minLon = Math.min(minLon, h.lon);
    maxLon = Math.max(maxLon, h.lon);
    minLat = Math.min(minLat, h.lat);
    maxLat = Math.max(maxLat, h.lat);
  }
  const cells = new Map<T, number[]>();
  for (const h of hits) {
    const cx = Math.min(GRID - 1, Math.floor(((h.lon - minLon) / Math.max(1e-9, maxLon - minLon)) * GRID));
    const cy = Math.min(GRID - 1, Math.floor(((h.lat - minLat) / Math.max(1e-9, maxLat - minLat)) * GRID));
    const c = cells.get(h.type) ?? new Array<number>(GRID * GRID).fill(0);
    c[cy * GRID + cx]!++;
    cells.set(h.type, c);
  }
  if (cells.size < 2) return none('one type in the first answer');
  const n = hits.length;
  const count = (t: T): number => cells.get(t)!.reduce((x, y) => x + y, 0);
  const rank = (t: T): number => (prior.indexOf(t) < 0 ? prior.length : prior.indexOf(t));
  let best: PilotVerdict<T> | undefined;
  for (const [pilot, pc] of cells) {
    const np = count(pilot);
    if (np < MIN_PILOT_HITS) continue;
    const planned = [...cells.keys()].filter((t) => t !== pilot && dissimilarity(pc, cells.get(t)!) <= maxDissimilarity);
    if (planned.length === 0 || (admissible !== undefined && !admissible(pilot, planned))) continue;
    const nPlanned = planned.reduce((x, t) => x + count(t), 0);
    const predictedCost = (COST_SPLIT * (n - nPlanned) + COST_PLANNED * nPlanned) / n;
    const v: PilotVerdict<T> = {
      pilot,
      planned: planned.sort((a, b) => rank(a) - rank(b)),
      ratio: nPlanned / np,
      predictedCost,
      reason: `${pilot} as the pilot, ${planned.join('+')} planned from its pins (ratio ${(nPlanned / np).toFixed(1)}, predicted ${predictedCost.toFixed(2)}x)`,
    };
    if (best === undefined || v.predictedCost < best.predictedCost || (v.predictedCost === best.predictedCost && rank(pilot) < rank(best.pilot!))) best = v;
  }
  if (best === undefined) return none(`no type with ${MIN_PILOT_HITS}+ hits lies where another lies`);
  if (best.predictedCost > COST_SPLIT * (1 - MIN_GAIN)) return { ...none(`best pilot predicts ${best.predictedCost.toFixed(2)}x: ${best.reason}`), predictedCost: best.predictedCost };
  return best;
}
