import { InvalidTilingOptionError } from './errors.js';
import { METRES_PER_DEG_LAT, makeTile, metresPerDegLon } from './geo.js';
import { compareNorthWest, cutAxes, placeCut, withEdge } from './kd-cut.js';
import { checkFill, checkPositive, checkPositiveInt } from './options.js';
import { partitionBelow, quickselect } from './quickselect.js';
import { regionBBox, tileIntersectsRegion } from './region.js';
import type { BBox, Point, Region, Tile } from './types.js';

/**
 * Default share of `max` a planned tile holds. The pins are known, so the plan is exact for an
 * unchanged API; the headroom only has to absorb what is added between two nights (a few percent)
 * and pins that sit on a shared edge and come back from both neighbours. 0.9 keeps night two within
 * 1.12x of the floor ceil(pins / max).
 */
export const PLAN_FILL = 0.9;

export interface PlanOptions {
  readonly maxPerRequest: number;
  /** Share of `maxPerRequest` a tile is planned to hold; the rest is headroom for new pins. */
  readonly fill?: number;
  readonly minTileSizeDeg: number;
}

interface Coords {
  readonly lon: Float64Array;
  readonly lat: Float64Array;
  readonly n: number;
}

/** Pins inside the region envelope, as two columns: the server counts every pin in a box towards `max`. */
function collect(points: Iterable<Point> | Float64Array, b: BBox): Coords {
  const inside = (x: number, y: number): boolean => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
  if (points instanceof Float64Array) {
    if (points.length % 2 !== 0) throw new InvalidTilingOptionError('points', 'a Float64Array must hold lon,lat pairs');
    let n = 0;
    for (let i = 0; i < points.length; i += 2) if (inside(points[i]!, points[i + 1]!)) n++;
    const lon = new Float64Array(n);
    const lat = new Float64Array(n);
    let j = 0;
    for (let i = 0; i < points.length; i += 2) {
      const x = points[i]!;
      const y = points[i + 1]!;
      if (inside(x, y)) {
        lon[j] = x;
        lat[j] = y;
        j++;
      }
    }
    return { lon, lat, n };
  }
  let lon = new Float64Array(1024);
  let lat = new Float64Array(1024);
  let n = 0;
  for (const p of points) {
    if (!inside(p.lon, p.lat)) continue;
    if (n === lon.length) {
      const grow = (a: Float64Array): Float64Array<ArrayBuffer> => {
        const g = new Float64Array(a.length * 2);
        g.set(a);
        return g;
      };
      lon = grow(lon);
      lat = grow(lat);
    }
    lon[n] = p.lon;
    lat[n] = p.lat;
    n++;
  }
  return { lon: lon.subarray(0, n), lat: lat.subarray(0, n), n };
}

/**
 * Tiles for a night that already knows where the pins are: a k-d partition of the region envelope at
 * pin quantiles, each tile expected to hold about `fill × maxPerRequest` pins. The region gets
 * `k = ceil(n / target)` tiles; a box owed k tiles is cut at the `floor(k/2)/k` quantile and each side
 * owes its share, so the total stays at k instead of the next power of two a median split would give.
 * Empty parts end up inside a few large tiles; tiles that miss a polygon region are dropped.
 */
export function planFromKnownPoints(region: Region, points: Iterable<Point> | Float64Array, opts: PlanOptions): Tile[] {
  const max = checkPositiveInt('maxPerRequest', opts.maxPerRequest);
  const fill = checkFill('fill', opts.fill ?? PLAN_FILL);
  const minSize = checkPositive('minTileSizeDeg', opts.minTileSizeDeg);
  const rb = regionBBox(region);
  const { lon, lat, n } = collect(points, rb);
  const target = Math.max(1, Math.floor(fill * max));
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  const kx = metresPerDegLon((rb[1] + rb[3]) / 2);
  const leaves: { box: BBox; known: number }[] = [];

  // Children inherit their share of the parent's tile count; recounting each child from its pins would
  // turn one pin nudged across a snapped edge (401 of 400) into an extra half-empty tile. The share is
  // only overridden when it is clearly wrong: more tiles than the pins need even at `target`, or pins
  // drifted halfway into the headroom.
  const ceiling = (target + max) / 2;
  const visit = (box: BBox, lo: number, hi: number, planned: number): void => {
    const count = hi - lo;
    const k = Math.max(Math.ceil(count / ceiling), Math.min(planned, Math.max(1, Math.ceil(count / target))));
    if (k <= 1) {
      leaves.push({ box, known: count });
      return;
    }
    const leftK = Math.floor(k / 2);
    const share = leftK / k;
    for (const axis of cutAxes(box, minSize, kx, METRES_PER_DEG_LAT)) {
      const key = axis === 0 ? lon : lat;
      const m = lo + Math.max(1, Math.round(count * share));
      quickselect(idx, key, lo, hi, m);
      let below = -Infinity;
      for (let i = lo; i < m; i++) below = Math.max(below, key[idx[i]!]!);
      // Cutting halfway between neighbouring pins keeps pins off the edge, where both tiles would return them.
      const cut = placeCut(box[axis], box[axis + 2]!, (below + key[idx[m]!]!) / 2, minSize);
      if (cut === undefined) continue;
      const s = partitionBelow(idx, key, lo, hi, cut);
      visit(withEdge(box, axis, 'low', cut), lo, s, leftK);
      visit(withEdge(box, axis, 'high', cut), s, hi, k - leftK);
      return;
    }
    // Too small to cut further: the sweep will find it capped and record it so.
    leaves.push({ box, known: count });
  };
  visit(rb, 0, n, Math.max(1, Math.ceil(n / target)));

  return leaves
    .filter((l) => tileIntersectsRegion(l.box, region))
    .sort((a, b) => compareNorthWest(a.box, b.box))
    .map((l) => ({ ...makeTile(l.box, 0), known: l.known }));
}
