/** Assertions-free geometry helpers for the tiling tests. */
import type { BBox, Tile } from '../../src/tiling/index.js';

/** Pairs of tiles whose interiors overlap (touching edges is fine). */
export function overlaps(tiles: readonly Tile[]): number {
  let n = 0;
  for (let i = 0; i < tiles.length; i++) {
    for (let j = i + 1; j < tiles.length; j++) {
      const a = tiles[i]!.bbox;
      const b = tiles[j]!.bbox;
      if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) n++;
    }
  }
  return n;
}

export function areaDeg2(b: BBox): number {
  return (b[2] - b[0]) * (b[3] - b[1]);
}

export function totalAreaDeg2(tiles: readonly Tile[]): number {
  return tiles.reduce((s, t) => s + areaDeg2(t.bbox), 0);
}
