import { checkPositiveInt } from './options.js';
import type { BBox, Tile } from './types.js';

export interface CapDetectorOptions {
  /**
   * A repeated count below this is never read as a cap: on a sparse region many tiles legitimately
   * hold exactly 0, 1 or 2 objects.
   */
  readonly minCount?: number;
  /** How many non-overlapping tiles must answer the identical count. */
  readonly minTiles?: number;
}

export interface CapDetector {
  /**
   * Feeds one answer: `receivedCount` hits for `tile`, requested with `max`. Returns the effective cap
   * known after it (undefined while none is). Call it for every answer, capped ones included.
   */
  observe(tile: Tile, receivedCount: number, max: number): number | undefined;
  /** The count the server silently stops at, if one has been noticed; the split threshold to use. */
  readonly effectiveCap: number | undefined;
}

/** The split threshold an answer is judged by: the job's max, or the server's silent cap once noticed. */
export function effectiveMax(detector: CapDetector, maxPerRequest: number): number {
  return Math.min(maxPerRequest, detector.effectiveCap ?? Infinity);
}

/**
 * Feeds an answer to the detector unless the plan knew at least that many objects in the tile: an
 * answer as large as what was known there is no evidence of a silent cap.
 */
export function observeAnswer(detector: CapDetector, tile: Tile, receivedCount: number, maxPerRequest: number): void {
  if (tile.known === undefined || receivedCount < tile.known) detector.observe(tile, receivedCount, maxPerRequest);
}

/** Interiors intersect: tiles that only share an edge or a corner are separate evidence. */
function overlaps(a: BBox, b: BBox): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

/**
 * Notices a server that cuts answers at a count below the requested `max` without saying so.
 *
 * Such a server answers every tile holding more than its cap c with exactly c hits, so c shows up
 * again and again, and nothing ever comes back between c and `max`. The rule: the effective cap is c
 * when at least `minTiles` non-overlapping tiles answered exactly c < max, c >= `minCount`, and no
 * answer below `max` held more than c (one that did proves the server can return more than c, so c
 * is a coincidence). Overlap matters because a tile and its own children are not independent
 * evidence. Once an answer above c arrives the cap is withdrawn again.
 */
export function createCapDetector(opts: CapDetectorOptions = {}): CapDetector {
  const minCount = checkPositiveInt('minCount', opts.minCount ?? 10);
  const minTiles = checkPositiveInt('minTiles', opts.minTiles ?? 3);
  /** Tiles per answered count, only for counts that can still be a cap (>= minCount). */
  const byCount = new Map<number, BBox[]>();
  /** Largest count answered below the requested max. */
  let largestUncapped = -1;
  let cap: number | undefined;

  // Tiles of a sweep are nested or disjoint, so taking the smallest first finds the most separate ones.
  const independentTiles = (boxes: readonly BBox[]): number => {
    const kept: BBox[] = [];
    const bySize = [...boxes].sort((a, b) => (a[2] - a[0]) * (a[3] - a[1]) - (b[2] - b[0]) * (b[3] - b[1]));
    for (const b of bySize) if (!kept.some((k) => overlaps(k, b))) kept.push(b);
    return kept.length;
  };

  return {
    observe(tile, receivedCount, max) {
      checkPositiveInt('max', max);
      if (!Number.isInteger(receivedCount) || receivedCount < 0) return cap;
      if (receivedCount >= max) return cap;
      if (receivedCount > largestUncapped) largestUncapped = receivedCount;
      if (receivedCount >= minCount) {
        const list = byCount.get(receivedCount) ?? [];
        list.push(tile.bbox);
        byCount.set(receivedCount, list);
      }
      const candidate = byCount.get(largestUncapped);
      cap = candidate !== undefined && independentTiles(candidate) >= minTiles ? largestUncapped : undefined;
      return cap;
    },
    get effectiveCap() {
      return cap;
    },
  };
}
