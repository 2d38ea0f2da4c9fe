import { InvalidTilingOptionError } from './errors.js';
import { bboxSizeMetres, makeTile, snapEdge } from './geo.js';
import { regionBBox, tileIntersectsRegion } from './region.js';
import type { BBox, Region, Tile } from './types.js';

export interface CoverOptions {
  /** Edge length in degrees on both axes; the last row and column are clipped to the region. */
  readonly tileSizeDeg?: number;
  /** About this many tiles over the region envelope, roughly square in metres. Ignored if `tileSizeDeg` is set. */
  readonly targetTiles?: number;
}

/** Edges from `min` to `max`; inner edges snapped so neighbours share one exact value. */
function edges(min: number, max: number, count: number, step: number | undefined): number[] {
  const out: number[] = [min];
  for (let i = 1; i < count; i++) {
    const e = snapEdge(step === undefined ? min + ((max - min) * i) / count : min + step * i);
    // Snapping can collapse a cell thinner than 1e-5°; skipping the edge keeps the partition valid.
    const prev = out[out.length - 1] as number;
    if (e > prev && e < max) out.push(e);
  }
  out.push(max);
  return out;
}

function gridShape(b: BBox, opts: CoverOptions): { cols: number; rows: number; step?: number } {
  if (opts.tileSizeDeg !== undefined) {
    const s = opts.tileSizeDeg;
    if (!(s > 0) || !Number.isFinite(s)) throw new InvalidTilingOptionError('tileSizeDeg', 'must be a positive number');
    return { cols: Math.ceil((b[2] - b[0]) / s - 1e-9), rows: Math.ceil((b[3] - b[1]) / s - 1e-9), step: s };
  }
  const n = opts.targetTiles ?? 1;
  if (!(n >= 1) || !Number.isFinite(n)) throw new InvalidTilingOptionError('targetTiles', 'must be a number >= 1');
  const { width, height } = bboxSizeMetres(b);
  const cols = Math.max(1, Math.round(Math.sqrt((n * width) / height)));
  return { cols, rows: Math.max(1, Math.ceil(n / cols)) };
}

/**
 * A grid of boxes over the region envelope, row-major from the north-west corner. Cells are
 * half-open partitions of the envelope (see `ownsPoint`); for a polygon region, cells that do not
 * touch the polygon are never produced.
 */
export function coverRegion(region: Region, opts: CoverOptions = {}): Tile[] {
  const b = regionBBox(region);
  const { cols, rows, step } = gridShape(b, opts);
  const xs = edges(b[0], b[2], Math.max(1, cols), step);
  // Rows are laid out from the south so a fixed step keeps the clipped remainder at the north edge,
  // then read from the north for the output order.
  const ys = edges(b[1], b[3], Math.max(1, rows), step);
  const tiles: Tile[] = [];
  for (let r = ys.length - 2; r >= 0; r--) {
    for (let c = 0; c < xs.length - 1; c++) {
      const bbox: BBox = [xs[c] as number, ys[r] as number, xs[c + 1] as number, ys[r + 1] as number];
      if (tileIntersectsRegion(bbox, region)) tiles.push(makeTile(bbox, 0));
    }
  }
  return tiles;
}
