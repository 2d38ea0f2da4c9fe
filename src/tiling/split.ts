import { readCappedAnswer, readPatches } from './estimate.js';
import { EDGE_DECIMALS, METRES_PER_DEG_LAT, bboxAreaM2, containsClosed, makeTile, metresPerDegLon } from './geo.js';
import { cutAxes, placeCut, withEdge } from './kd-cut.js';
import type { Axis } from './kd-cut.js';
import { checkFill, checkPositive, checkPositiveInt } from './options.js';
import { tileIntersectsRegion } from './region.js';
import type { Recapture, SplitMemory } from './split-memory.js';
import type { BBox, Point, Region, Tile } from './types.js';

export interface SplitOptions {
  readonly maxPerRequest: number;
  readonly minTileSizeDeg: number;
  /** Share of `maxPerRequest` each child is sized for; lower means fewer re-splits, more children. */
  readonly fill?: number;
  /** Ceiling on children per split, so a wild density guess (a city core probed from a country-wide box) stays cheap. */
  readonly maxChildren?: number;
  /** Children that miss a polygon region are dropped. */
  readonly region?: Region;
  /** The run's memory of earlier answers (`createSplitMemory`): sizes the split, and learns the children. */
  readonly memory?: SplitMemory;
  /**
   * Whether a still-capped tile at `minTileSizeDeg` may go below it as far as its answer's density
   * asks (the default minimum), or stops there (a minimum the job set: a hard floor). Default true.
   */
  readonly followDensity?: boolean;
}

/**
 * The smallest tile a split may make, in degrees: inner edges are snapped to 10^-EDGE_DECIMALS (the
 * precision the request's coordinates carry), and a tile must hold one snapped edge strictly inside
 * to be cut. Below this no request can tell positions apart, however dense the answer.
 */
export const PRECISION_MIN_TILE_DEG = 2 / 10 ** EDGE_DECIMALS;
const EDGE_STEP_DEG = 1 / 10 ** EDGE_DECIMALS;

/**
 * The minimum size for a capped tile that is already at or below `minTileSizeDeg`: the density its
 * own answer shows decides how small its children must be, down to `PRECISION_MIN_TILE_DEG`. The
 * children are sized to hold `fill × max` at the density of the disc reading (the best estimate of the
 * tile's total), and may be cut at half that so the cut can follow where the pins are. Undefined when
 * no smaller box can separate the hits: all of them lie within one edge step on both axes (more
 * than `max` objects at one position as the request can name it).
 */
function densityMinSize(b: BBox, hits: readonly Point[], max: number, fill: number, kx: number, configured: number): number | undefined {
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  let inside = 0;
  for (const h of hits) {
    if (!containsClosed(b, h.lon, h.lat)) continue;
    inside++;
    minLon = Math.min(minLon, h.lon);
    maxLon = Math.max(maxLon, h.lon);
    minLat = Math.min(minLat, h.lat);
    maxLat = Math.max(maxLat, h.lat);
  }
  if (inside === 0 || (maxLon - minLon < EDGE_STEP_DEG && maxLat - minLat < EDGE_STEP_DEG)) return undefined;
  const total = Math.max(readCappedAnswer(b, hits).estimatedTotal, max + 1);
  // A child's side in metres at that density, then in degrees on the axis where a degree is shortest.
  const childM = Math.sqrt((fill * max * bboxAreaM2(b)) / total);
  const side = 0.5 * Math.min(childM / kx, childM / METRES_PER_DEG_LAT);
  return Math.max(PRECISION_MIN_TILE_DEG, Math.min(configured, side));
}

/** Share of `max` a split's children are sized for, and the most children one split makes (`plan --probe` models a night with them). */
export const SPLIT_FILL = 0.8;
export const SPLIT_MAX_CHILDREN = 32;

/** The capped answers a run has split, by tile id, for their children's recapture estimate. */
interface KeptAnswers {
  /** Each answer's hits as lon, lat pairs: a Point object per hit held a million-pin night one 90 MB higher. */
  readonly byTile: Map<string, Float64Array>;
  points: number;
}
const answersOf = new WeakMap<SplitMemory, KeptAnswers>();
/**
 * Hits kept per run, oldest dropped first (a parent read by a child counts as new again): the sweep
 * works newest first, so most children are split soon after their parent. A dropped parent costs its
 * late children the recapture, never a pin.
 */
const KEPT_POINTS = 250_000;
/** Fewer of the parent's hits in the child than this and the recapture says too little. */
const MIN_MARKED = 8;

/** Hits that stay within this share of the tile's half-diagonal from its centre read as a disc; beyond, as a sample. */
const DISC_SPAN = 0.8;
/**
 * What a capped tile is taken to hold while the run has seen no uncapped answer and its answer is a
 * sample: 2 × max measured best on the shared worlds and the harness's (3 and a root-only growth did worse).
 */
const BLIND_GROWTH = 2;
/** A size within this factor of the cap is the cap's lower bound, not an estimate. */
const BLIND_SLACK = 1.05;

function halfDiagonalM(b: BBox, kx: number): number {
  return Math.hypot(((b[2] - b[0]) * kx) / 2, ((b[3] - b[1]) * METRES_PER_DEG_LAT) / 2);
}

const coordKey = (p: Point): string => `${p.lon},${p.lat}`;

/**
 * The pins a capped tile holds, when its answer and its parent's are both samples drawn afresh
 * (a server that shuffles each answer): the parent's hits inside the tile are marked, the tile's own
 * answer recaptures some of them, and marked × drawn / recaptured estimates the whole (Chapman's
 * form of Lincoln-Petersen). Undefined when the answers do not look like fresh samples: the tile's
 * hits do not reach its corners (a disc around the centre: its own reading knows better), or every
 * marked hit came back (a fixed order, by id or insertion, which says nothing about the count).
 */
function recaptureTotal(memory: SplitMemory, tile: Tile, b: BBox, hits: readonly Point[], radiusM: number, kx: number): Recapture | undefined {
  let kept = answersOf.get(memory);
  if (kept === undefined) {
    kept = { byTile: new Map(), points: 0 };
    answersOf.set(memory, kept);
  }
  const keep = (id: string, h: Float64Array): void => {
    const had = kept.byTile.get(id);
    if (had !== undefined) {
      kept.byTile.delete(id);
      kept.points -= had.length / 2;
    }
    kept.byTile.set(id, h);
    kept.points += h.length / 2;
    for (const [oldest, o] of kept.byTile) {
      if (kept.points <= KEPT_POINTS || oldest === id) break;
      kept.byTile.delete(oldest);
      kept.points -= o.length / 2;
    }
  };
  const parentHits = tile.parentId === undefined ? undefined : kept.byTile.get(tile.parentId);
  if (parentHits !== undefined) keep(tile.parentId!, parentHits);
  // Kept whatever its shape: a sample from a clustered world need not reach the corners to be one.
  const pairs = new Float64Array(hits.length * 2);
  hits.forEach((h, i) => {
    pairs[2 * i] = h.lon;
    pairs[2 * i + 1] = h.lat;
  });
  keep(tile.id, pairs);
  if (parentHits === undefined) return undefined;
  // A disc around the centre is no fresh sample: its own reading knows better.
  if (radiusM < DISC_SPAN * halfDiagonalM(b, kx)) return undefined;
  const drawn = new Map<string, number>();
  for (const h of hits) if (containsClosed(b, h.lon, h.lat)) drawn.set(coordKey(h), (drawn.get(coordKey(h)) ?? 0) + 1);
  let marked = 0;
  let recaptured = 0;
  for (let i = 0; i < parentHits.length; i += 2) {
    const h = { lon: parentHits[i]!, lat: parentHits[i + 1]! };
    if (!containsClosed(b, h.lon, h.lat)) continue;
    marked++;
    const left = drawn.get(coordKey(h)) ?? 0;
    if (left > 0) {
      recaptured++;
      drawn.set(coordKey(h), left - 1);
    }
  }
  let n = 0;
  for (const h of hits) if (containsClosed(b, h.lon, h.lat)) n++;
  if (marked < MIN_MARKED || recaptured >= marked) return undefined;
  // ln of the estimate varies by about 1/recaptured + 1/marked (each a count of chance draws); in log2 units, squared.
  const squaredLog2Error = (1 / (recaptured + 1) + 1 / marked) / Math.LN2 ** 2;
  return { total: ((marked + 1) * (n + 1)) / (recaptured + 1) - 1, squaredLog2Error };
}

/** A located amount of expected pins: a hit (weight 1) or an unseen cell (its estimate). */
interface Mass {
  readonly lon: number;
  readonly lat: number;
  readonly w: number;
}

function sumWeights(items: readonly Mass[]): number {
  let s = 0;
  for (const m of items) s += m.w;
  return s;
}

/** The coordinate below which `share` of the mass lies, halfway to the next item. */
function weightedQuantile(sorted: readonly Mass[], axis: Axis, total: number, share: number): number {
  const want = total * share;
  let acc = 0;
  for (let i = 0; i < sorted.length; i++) {
    const m = sorted[i]!;
    acc += m.w;
    if (acc >= want) {
      const here = axis === 0 ? m.lon : m.lat;
      const next = sorted[i + 1];
      return next === undefined ? here : (here + (axis === 0 ? next.lon : next.lat)) / 2;
    }
  }
  return Number.NaN;
}

/**
 * Children for a capped tile, cut where the pins are rather than at the midpoint.
 *
 * The order of a capped answer is not documented, so it is read two ways: as "every pin near the
 * centre, none beyond" (`readCappedAnswer`, EFA's usual order) and as "complete where it has hits,
 * unknown elsewhere" (`readPatches`, a server that returns whole areas, as by id). Each reading puts
 * the hits and its guess for the unseen rest into a mass. Without a memory the disc reading decides;
 * with the run's memory (`createSplitMemory`) the total is the disc's, the patches' or what siblings
 * and ancestors showed (the only one that works when the answer is a thinned sample, as in random or
 * insertion order), and the cut follows the reading, whichever has matched exact counts better
 * lately. The tile gets `k = ceil(total / (fill × max))` children (at least 2, at most `maxChildren`)
 * and is cut k-d style: along the longer side in metres, at the mass quantile that gives each side its
 * share of the k children. Children exactly partition the parent (shared edges snapped to 1e-5°), and
 * the memory learns what each was cut to hold. The memory only sizes the cuts: which tile owns which
 * pin does not depend on it, nor on the order answers arrive in.
 *
 * A tile at or below `minTileSizeDeg` on both axes is split further only as far as its answer's
 * density asks (`densityMinSize`, down to `PRECISION_MIN_TILE_DEG`). Returns `'too-small'` when even
 * that cannot help (the tile is at the density's or the precision's minimum, or every hit lies at
 * one position as a request can name it): the caller keeps the capped answer and records the tile
 * as capped.
 */
export function splitTile(tile: Tile, hits: readonly Point[], opts: SplitOptions): Tile[] | 'too-small' {
  const max = checkPositiveInt('maxPerRequest', opts.maxPerRequest);
  const configuredMin = checkPositive('minTileSizeDeg', opts.minTileSizeDeg);
  const fill = checkFill('fill', opts.fill ?? SPLIT_FILL);
  const maxChildren = Math.max(2, checkPositiveInt('maxChildren', opts.maxChildren ?? SPLIT_MAX_CHILDREN));
  const b = tile.bbox;
  const kx = metresPerDegLon((b[1] + b[3]) / 2);
  let minSize = configuredMin;
  if (cutAxes(b, minSize, kx, METRES_PER_DEG_LAT).length === 0) {
    if (opts.followDensity === false) return 'too-small';
    // At the configured minimum and still capped: a dense world must not end partial for want of a
    // smaller tile, so the answer's own density sets how much smaller.
    const dense = densityMinSize(b, hits, max, fill, kx, configuredMin);
    if (dense === undefined || cutAxes(b, dense, kx, METRES_PER_DEG_LAT).length === 0) return 'too-small';
    minSize = dense;
  }

  // Two readings of the answer: a disc of every pin around the centre (the usual EFA order), and
  // patches complete where hits lie with the rest as dense as the run has found such rest to be.
  const disc = readCappedAnswer(b, hits);
  const discItems: Mass[] = disc.hits.map((h) => ({ lon: h.lon, lat: h.lat, w: 1 }));
  for (const u of disc.unseen) discItems.push({ lon: u.lon, lat: u.lat, w: u.expected });
  const patches = readPatches(b, hits);
  const patchItems: Mass[] = patches.hits.map((h) => ({ lon: h.lon, lat: h.lat, w: 1 }));
  const unseenRatio = opts.memory?.unseenDensityRatio ?? 1;
  for (const u of patches.unseen) if (u.expected > 0) patchItems.push({ lon: u.lon, lat: u.lat, w: u.expected * unseenRatio });
  const readings = { disc: sumWeights(discItems), patches: sumWeights(patchItems) };
  // Capped means at least max pins, whatever a reading says; what siblings and ancestors showed may say more.
  const recaptured = opts.memory === undefined ? undefined : recaptureTotal(opts.memory, tile, b, hits, disc.radiusM, kx);
  const sizing = opts.memory?.sizeCappedTile(tile, readings, max + 1, recaptured) ?? { total: Math.max(readings.disc, max + 1), shape: 'disc' as const };
  const items = sizing.shape === 'disc' ? discItems : patchItems;
  const mass = readings[sizing.shape];
  // Before the run's first uncapped answer, a capped answer whose hits reach the tile's corners (a
  // sample, not a disc) says only "at least max", and so does every sibling: read as max, every split
  // would halve, one capped level per doubling of the truth. Until something is known exactly, such a
  // tile is taken to hold BLIND_GROWTH × max.
  const blind = opts.memory?.exactAnswers === 0 && disc.radiusM >= DISC_SPAN * halfDiagonalM(b, kx) && sizing.total <= BLIND_SLACK * (max + 1);
  const total = blind ? Math.max(sizing.total, BLIND_GROWTH * max) : sizing.total;
  const k = Math.min(maxChildren, Math.max(2, Math.ceil(total / (fill * max))));

  const boxes: { box: BBox; mass: number }[] = [];
  const visit = (box: BBox, inside: Mass[], parts: number): void => {
    if (parts <= 1) {
      boxes.push({ box, mass: sumWeights(inside) });
      return;
    }
    const left = Math.floor(parts / 2);
    for (const axis of cutAxes(box, minSize, kx, METRES_PER_DEG_LAT)) {
      const key = (m: Mass): number => (axis === 0 ? m.lon : m.lat);
      const sorted = [...inside].sort((p, q) => key(p) - key(q));
      const desired = weightedQuantile(sorted, axis, sumWeights(sorted), left / parts);
      const cut = placeCut(box[axis], box[axis + 2]!, desired, minSize);
      if (cut === undefined) continue;
      visit(withEdge(box, axis, 'low', cut), sorted.filter((m) => key(m) < cut), left);
      visit(withEdge(box, axis, 'high', cut), sorted.filter((m) => key(m) >= cut), parts - left);
      return;
    }
    boxes.push({ box, mass: sumWeights(inside) });
  };
  visit(b, items, k);
  // Only reachable when the tile is too thin to hold a snapped edge: returning it unsplit would loop.
  if (boxes.length < 2) return 'too-small';

  const region = opts.region;
  const kept = boxes.filter((c) => region === undefined || tileIntersectsRegion(c.box, region));
  const shareOf = (box: BBox, of: readonly Mass[], whole: number): number => {
    if (!(whole > 0)) return 1 / boxes.length;
    let w = 0;
    // Half-open like the cuts, except on the parent's own max edges.
    for (const m of of) {
      const inLon = m.lon >= box[0] && (m.lon < box[2] || box[2] === b[2]);
      const inLat = m.lat >= box[1] && (m.lat < box[3] || box[3] === b[3]);
      if (inLon && inLat) w += m.w;
    }
    return w / whole;
  };
  const children = kept.map((c) => ({
    tile: makeTile(c.box, tile.depth + 1, tile.id),
    share: mass > 0 ? c.mass / mass : 1 / boxes.length,
    readingShares: { disc: shareOf(c.box, discItems, readings.disc), patches: shareOf(c.box, patchItems, readings.patches) },
  }));
  opts.memory?.recordSplit(tile, total, children, { hits: patches.hits.length, unseenExpected: patches.unseenExpected });
  return children.map((c) => c.tile);
}
