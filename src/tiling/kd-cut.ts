import { snapEdge } from './geo.js';
import type { BBox } from './types.js';

/** 0 cuts along longitude (a vertical edge), 1 along latitude. */
export type Axis = 0 | 1;

/**
 * Axes worth cutting, the longer one in metres first: cutting the long side keeps tiles compact,
 * and a compact box is what the server's nearest-to-centre answer describes best. An axis at or
 * below `minSize` degrees is never cut, which is what makes "too small on both axes" terminal.
 */
export function cutAxes(b: BBox, minSize: number, metresPerDegLon: number, metresPerDegLat: number): Axis[] {
  const w = b[2] - b[0];
  const h = b[3] - b[1];
  const order: Axis[] = w * metresPerDegLon >= h * metresPerDegLat ? [0, 1] : [1, 0];
  return order.filter((a) => (a === 0 ? w : h) > minSize);
}

/**
 * A snapped cut strictly inside `(lo, hi)`, as near `desired` as the minimum tile size allows, or
 * undefined when the span is too thin to hold two snapped edges.
 */
export function placeCut(lo: number, hi: number, desired: number, minSize: number): number | undefined {
  let c = Number.isFinite(desired) ? desired : (lo + hi) / 2;
  if (hi - lo >= 2 * minSize) c = Math.min(Math.max(c, lo + minSize), hi - minSize);
  c = snapEdge(c);
  if (c > lo && c < hi) return c;
  c = snapEdge((lo + hi) / 2);
  return c > lo && c < hi ? c : undefined;
}

export function withEdge(b: BBox, axis: Axis, side: 'low' | 'high', cut: number): BBox {
  if (axis === 0) return side === 'low' ? [b[0], b[1], cut, b[3]] : [cut, b[1], b[2], b[3]];
  return side === 'low' ? [b[0], b[1], b[2], cut] : [b[0], cut, b[2], b[3]];
}

/** North-west first, row-major: the order humans read a tile list and `plan` prints it. */
export function compareNorthWest(a: BBox, b: BBox): number {
  return b[3] - a[3] || a[0] - b[0] || b[1] - a[1] || a[2] - b[2];
}
