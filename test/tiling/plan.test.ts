import { describe, expect, it } from 'vitest';
import { planFromKnownPoints } from '../../src/tiling/index.js';
import type { Point, Region } from '../../src/tiling/index.js';
import { rng } from './harness.js';
import { areaDeg2, overlaps, totalAreaDeg2 } from './geometry.js';

const BOX: Region = { bbox: [9.05, 48.7, 9.3, 48.85] };

describe('planFromKnownPoints', () => {
  it('plans ceil(n / (fill x max)) tiles that partition the region', () => {
    const rand = rng(7);
    const pts: Point[] = Array.from({ length: 10_000 }, () => ({ lon: 9.05 + rand() * 0.1, lat: 48.7 + rand() * 0.05 }));
    const tiles = planFromKnownPoints(BOX, pts, { maxPerRequest: 500, minTileSizeDeg: 0.0005 });
    expect(tiles).toHaveLength(23); // 10,000 / (0.9 x 500): the default fill is 0.9
    expect(overlaps(tiles)).toBe(0);
    expect(totalAreaDeg2(tiles)).toBeCloseTo(areaDeg2([9.05, 48.7, 9.3, 48.85]), 12);
    for (const t of tiles) {
      const inside = pts.filter((p) => p.lon >= t.bbox[0] && p.lon <= t.bbox[2] && p.lat >= t.bbox[1] && p.lat <= t.bbox[3]);
      expect(inside.length).toBeLessThanOrEqual(460); // 0.9 x 500 and a few on edges
    }
    // The empty three quarters of the region are covered by a few large tiles.
    expect(tiles.filter((t) => t.bbox[0] >= 9.15 || t.bbox[1] >= 48.75).length).toBeLessThanOrEqual(3);
  });

  it('returns the whole region as one tile when nothing is known', () => {
    expect(planFromKnownPoints(BOX, [], { maxPerRequest: 500, minTileSizeDeg: 0.001 }).map((t) => t.bbox)).toEqual([[9.05, 48.7, 9.3, 48.85]]);
  });

  it('stops at the minimum tile size even when thousands of pins share one spot', () => {
    const same = new Float64Array(2 * 3000).map((_, i) => (i % 2 === 0 ? 9.1 : 48.8));
    const tiles = planFromKnownPoints(BOX, same, { maxPerRequest: 100, minTileSizeDeg: 0.001 });
    expect(tiles.length).toBeLessThan(40);
    expect(overlaps(tiles)).toBe(0);
  });

  it('drops tiles outside a polygon region', () => {
    const region: Region = {
      geojson: {
        type: 'MultiPolygon',
        coordinates: [
          [[[9, 48], [9.1, 48], [9.1, 48.1], [9, 48.1], [9, 48]]],
          [[[9.3, 48.3], [9.4, 48.3], [9.4, 48.4], [9.3, 48.4], [9.3, 48.3]]],
        ],
      },
    };
    const rand = rng(3);
    const pts = new Float64Array(2 * 4000);
    for (let i = 0; i < 4000; i++) {
      const far = i % 2 === 0;
      pts[2 * i] = (far ? 9.3 : 9) + rand() * 0.1;
      pts[2 * i + 1] = (far ? 48.3 : 48) + rand() * 0.1;
    }
    const tiles = planFromKnownPoints(region, pts, { maxPerRequest: 100, minTileSizeDeg: 0.001, fill: 0.8 });
    expect(tiles.length).toBe(50);
    const touches = (b: readonly number[], x: number, y: number): boolean =>
      b[0]! <= x + 0.1 && b[2]! >= x && b[1]! <= y + 0.1 && b[3]! >= y;
    for (const t of tiles) expect(touches(t.bbox, 9, 48) || touches(t.bbox, 9.3, 48.3)).toBe(true);
  });

  it('plans a million pins in bounded time and memory', () => {
    const rand = rng(11);
    const n = 1_000_000;
    const pts = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      const c = i % 3;
      pts[2 * i] = 9.05 + (c === 0 ? rand() * 0.25 : 0.1 + rand() * rand() * 0.05);
      pts[2 * i + 1] = 48.7 + (c === 0 ? rand() * 0.15 : 0.05 + rand() * rand() * 0.05);
    }
    const before = process.memoryUsage().heapUsed;
    const started = Date.now();
    const tiles = planFromKnownPoints(BOX, pts, { maxPerRequest: 500, minTileSizeDeg: 0.0001, fill: 0.8 });
    const ms = Date.now() - started;
    expect(tiles.length).toBeGreaterThanOrEqual(2500);
    expect(tiles.length).toBeLessThanOrEqual(2510);
    expect(overlaps(tiles.slice(0, 300))).toBe(0);
    // Two coordinate columns and an index: about 20 MB, nowhere near a copy per level.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    expect(ms).toBeLessThan(20_000);
  });
});
