import type { BBox, Point, Tile } from './types.js';

/**
 * Whether `tile` owns `point` among a partition of `regionBBox`.
 *
 * Box search is inclusive on every edge, so a pin on a shared edge comes back from both neighbours.
 * Half-open ownership (min edges inclusive, max edges exclusive) gives it to exactly one of them; the
 * region's own max edges stay inclusive, otherwise pins on them would have no owner at all.
 * Tile edges are compared exactly: partitions built here share bit-identical edge values.
 */
export function ownsPoint(tile: Tile, point: Point, regionBBox: BBox): boolean {
  const [minLon, minLat, maxLon, maxLat] = tile.bbox;
  const { lon, lat } = point;
  if (lon < minLon || lat < minLat || lon > maxLon || lat > maxLat) return false;
  if (lon === maxLon && maxLon !== regionBBox[2]) return false;
  if (lat === maxLat && maxLat !== regionBBox[3]) return false;
  return true;
}
