import { describe, expect, it } from 'vitest';
import { coverRegion, inRegion, ownsPoint } from '../../src/tiling/index.js';
import type { BBox, Region } from '../../src/tiling/index.js';

const R: BBox = [9.0, 48.0, 9.2, 48.2];

describe('ownsPoint', () => {
  const tiles = coverRegion({ bbox: R }, { tileSizeDeg: 0.1 });
  const owners = (lon: number, lat: number): string[] =>
    tiles.filter((t) => ownsPoint(t, { lon, lat }, R)).map((t) => t.id);

  it('gives a pin on a shared edge or corner to exactly one tile, the one above and to the right', () => {
    expect(owners(9.1, 48.05)).toEqual(['0/9.1,48,9.2,48.1']);
    expect(owners(9.05, 48.1)).toEqual(['0/9,48.1,9.1,48.2']);
    expect(owners(9.1, 48.1)).toEqual(['0/9.1,48.1,9.2,48.2']);
  });

  it('keeps the region outer edges inclusive, on every side and corner', () => {
    for (const [lon, lat] of [
      [9.2, 48.2],
      [9.2, 48.0],
      [9.0, 48.2],
      [9.0, 48.0],
      [9.2, 48.13],
      [9.07, 48.2],
    ] as const) {
      expect(owners(lon, lat)).toHaveLength(1);
    }
  });

  it('owns nothing outside the region', () => {
    expect(owners(9.2000001, 48.1)).toEqual([]);
    expect(owners(9.1, 47.99999)).toEqual([]);
  });
});

describe('inRegion', () => {
  const withHole: Region = {
    geojson: {
      type: 'Polygon',
      coordinates: [
        [[9, 48], [9.2, 48], [9.2, 48.2], [9, 48.2], [9, 48]],
        [[9.05, 48.05], [9.15, 48.05], [9.15, 48.15], [9.05, 48.15], [9.05, 48.05]],
      ],
    },
  };

  it('excludes the hole of a polygon and counts its boundary as inside', () => {
    expect(inRegion(withHole, { lon: 9.1, lat: 48.1 })).toBe(false);
    expect(inRegion(withHole, { lon: 9.02, lat: 48.1 })).toBe(true);
    expect(inRegion(withHole, { lon: 9.2, lat: 48.1 })).toBe(true);
    expect(inRegion(withHole, { lon: 9.25, lat: 48.1 })).toBe(false);
  });

  it('treats a box region as closed', () => {
    expect(inRegion({ bbox: R }, { lon: 9.2, lat: 48.2 })).toBe(true);
    expect(inRegion({ bbox: R }, { lon: 9.21, lat: 48.2 })).toBe(false);
  });
});
