import { describe, expect, it } from 'vitest';
import { InvalidRegionError, InvalidTilingOptionError, coverRegion } from '../../src/tiling/index.js';
import type { Region } from '../../src/tiling/index.js';
import { areaDeg2, overlaps, totalAreaDeg2 } from './geometry.js';

const BOX: Region = { bbox: [9.05, 48.7, 9.3, 48.85] };

describe('coverRegion', () => {
  it('lays a fixed-size grid row-major from the north-west, clipping the last row and column', () => {
    const tiles = coverRegion(BOX, { tileSizeDeg: 0.1 });
    expect(tiles).toHaveLength(6); // 3 columns (0.25) x 2 rows (0.15)
    expect(tiles[0]!.bbox).toEqual([9.05, 48.8, 9.15, 48.85]);
    expect(tiles[2]!.bbox).toEqual([9.25, 48.8, 9.3, 48.85]);
    expect(tiles[5]!.bbox).toEqual([9.25, 48.7, 9.3, 48.8]);
    expect(tiles.map((t) => t.depth)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(tiles[0]!.id).toBe('0/9.05,48.8,9.15,48.85');
    expect(overlaps(tiles)).toBe(0);
    expect(totalAreaDeg2(tiles)).toBeCloseTo(areaDeg2(BOX.bbox), 12);
  });

  it('picks roughly square tiles in metres for a target count', () => {
    const tiles = coverRegion(BOX, { targetTiles: 12 });
    // 0.25° lon at 48.8° is 18.3 km, 0.15° lat is 16.7 km: 4 columns x 3 rows.
    expect(tiles).toHaveLength(12);
    expect(new Set(tiles.map((t) => t.bbox[0])).size).toBe(4);
    expect(overlaps(tiles)).toBe(0);
    expect(totalAreaDeg2(tiles)).toBeCloseTo(areaDeg2(BOX.bbox), 12);
    // Inner edges are on the 1e-5° grid the request format carries.
    for (const t of tiles) for (const v of t.bbox) expect(Math.round(v * 1e5) / 1e5).toBe(v);
  });

  it('is deterministic', () => {
    expect(coverRegion(BOX, { targetTiles: 30 })).toEqual(coverRegion(BOX, { targetTiles: 30 }));
  });

  it('drops grid cells that miss a concave polygon', () => {
    // An L over the unit-ish box: the north-east quarter is not part of it.
    const region: Region = {
      geojson: {
        type: 'Polygon',
        coordinates: [[[9, 48], [9.2, 48], [9.2, 48.1], [9.1, 48.1], [9.1, 48.2], [9, 48.2], [9, 48]]],
      },
    };
    const tiles = coverRegion(region, { tileSizeDeg: 0.025 });
    // 64 cells; of the 16 in the missing quarter, the 7 touching the L's inner edges stay (a pin on
    // that edge may be theirs to own), the other 9 are dropped.
    expect(tiles).toHaveLength(55);
    expect(tiles.some((t) => t.bbox[0] > 9.1 && t.bbox[1] > 48.1)).toBe(false);
  });

  it('rejects bad regions and options with named errors', () => {
    expect(() => coverRegion({ bbox: [9.3, 48.7, 9.05, 48.85] })).toThrow(InvalidRegionError);
    expect(() => coverRegion({ bbox: [9, 48, Number.NaN, 49] })).toThrow(InvalidRegionError);
    expect(() => coverRegion(BOX, { tileSizeDeg: 0 })).toThrow(InvalidTilingOptionError);
    expect(() => coverRegion(BOX, { targetTiles: 0 })).toThrow(InvalidTilingOptionError);
  });
});
