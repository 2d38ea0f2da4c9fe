import { describe, expect, it } from 'vitest';
import { coverRegion, createCapDetector, splitTile } from '../../src/tiling/index.js';
import type { Tile } from '../../src/tiling/index.js';
import { clusteredWorld, pointAt, queryBox, uniformWorld } from './harness.js';
import type { World } from './harness.js';

const grid = (n: number): Tile[] => coverRegion({ bbox: [9.05, 48.7, 9.3, 48.85] }, { targetTiles: n });

/** A server that never returns more than `silentCap` hits, whatever `max` says. */
function silentlyCapped(w: World, t: Tile, max: number, silentCap: number): number {
  return queryBox(w, t.bbox, Math.min(max, silentCap)).length;
}

describe('createCapDetector', () => {
  it('reports the count several separate tiles stop at below max, and nothing before the third', () => {
    const d = createCapDetector();
    const tiles = grid(16);
    expect(d.observe(tiles[0]!, 200, 500)).toBeUndefined();
    expect(d.observe(tiles[1]!, 37, 500)).toBeUndefined();
    expect(d.observe(tiles[2]!, 200, 500)).toBeUndefined();
    expect(d.observe(tiles[3]!, 200, 500)).toBe(200);
    expect(d.effectiveCap).toBe(200);
  });

  it('finds the cap of a silently capped server on a clustered world', () => {
    const w = clusteredWorld(20_000, 3);
    const d = createCapDetector();
    let found: number | undefined;
    for (const t of grid(64)) found = d.observe(t, silentlyCapped(w, t, 500, 120), 500);
    expect(found).toBe(120);
  });

  it('does not fire on a sparse world where many tiles hold the same few objects', () => {
    const w = uniformWorld(300, 4);
    const d = createCapDetector();
    const counts = new Map<number, number>();
    for (const t of grid(256)) {
      const n = queryBox(w, t.bbox, 500).length;
      counts.set(n, (counts.get(n) ?? 0) + 1);
      d.observe(t, n, 500);
    }
    // The world really does repeat small counts many times over.
    expect(Math.max(...counts.values())).toBeGreaterThanOrEqual(3);
    expect(d.effectiveCap).toBeUndefined();
  });

  it('ignores a tile and its own children answering the same count (they are one piece of evidence)', () => {
    const w = clusteredWorld(20_000, 3);
    const root = grid(1)[0]!;
    const children = splitTile(root, queryBox(w, root.bbox, 500).map((i) => pointAt(w, i)), { maxPerRequest: 500, minTileSizeDeg: 0.0005 });
    if (children === 'too-small') throw new Error('unexpected too-small');
    const d = createCapDetector();
    d.observe(root, 150, 500);
    d.observe(children[0]!, 150, 500);
    // A child nested in another child: take the first child's own split.
    const inner = splitTile(children[0]!, [{ lon: children[0]!.bbox[0], lat: children[0]!.bbox[1] }, { lon: children[0]!.bbox[2], lat: children[0]!.bbox[3] }], {
      maxPerRequest: 2,
      minTileSizeDeg: 0.0005,
    });
    if (inner === 'too-small') throw new Error('unexpected too-small');
    expect(d.observe(inner[0]!, 150, 500)).toBeUndefined();
    expect(d.observe(children[1]!, 150, 500)).toBeUndefined();
    expect(d.observe(children[2]!, 150, 500)).toBe(150);
  });

  it('withdraws the cap when a later answer below max holds more', () => {
    const d = createCapDetector();
    const tiles = grid(16);
    for (const t of tiles.slice(0, 3)) d.observe(t, 50, 500);
    expect(d.effectiveCap).toBe(50);
    expect(d.observe(tiles[3]!, 51, 500)).toBeUndefined();
  });

  it('never reads answers at max as a silent cap, and ignores repeated counts below minCount', () => {
    const d = createCapDetector({ minCount: 10 });
    const tiles = grid(16);
    for (const t of tiles.slice(0, 5)) d.observe(t, 500, 500);
    expect(d.effectiveCap).toBeUndefined();
    for (const t of tiles.slice(5, 10)) d.observe(t, 9, 500);
    expect(d.effectiveCap).toBeUndefined();
  });
});
