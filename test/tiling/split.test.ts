import { describe, expect, it } from 'vitest';
import {
  InvalidTilingOptionError,
  coverRegion,
  estimateTileCount,
  readCappedAnswer,
  readPatches,
  PRECISION_MIN_TILE_DEG,
  splitTile,
} from '../../src/tiling/index.js';
import type { BBox, Point, Tile } from '../../src/tiling/index.js';
import { adaptiveSplitter, checkCompleteness, queryBox, clusteredWorld, pointAt, sweep, uniformWorld } from './harness.js';
import { overlaps, totalAreaDeg2, areaDeg2 } from './geometry.js';
import { createSplitMemory } from '../../src/tiling/index.js';
import { makeRng } from '../../src/sim/rng.js';

const ROOT: Tile = coverRegion({ bbox: [9.05, 48.7, 9.3, 48.85] }, { targetTiles: 1 })[0]!;
const world = clusteredWorld(50_000, 1);
const capped = (t: Tile, max: number): Point[] => queryBox(world, t.bbox, max).map((i) => pointAt(world, i));

describe('readCappedAnswer', () => {
  it('sees a disc around the centre and guesses the rest from its outer ring', () => {
    const hits = capped(ROOT, 500);
    const r = readCappedAnswer(ROOT.bbox, hits);
    expect(r.hits).toHaveLength(500);
    // The city core sits at the centre: 500 pins fit in a disc of a few hundred metres.
    expect(r.radiusM).toBeGreaterThan(100);
    expect(r.radiusM).toBeLessThan(1500);
    // Areas are sampled on a grid of about 140 m over this 18 km tile: a 20 % tolerance on a small disc.
    expect(r.seenAreaM2 / (Math.PI * r.radiusM ** 2)).toBeGreaterThan(0.8);
    expect(r.seenAreaM2 / (Math.PI * r.radiusM ** 2)).toBeLessThan(1.2);
    expect(r.estimatedTotal).toBeGreaterThan(500);
  });

  it('sees the whole tile when hits are spread over it, and guesses nothing beyond', () => {
    const b: BBox = [9, 48, 9.01, 48.01];
    const hits: Point[] = [
      { lon: 9, lat: 48 },
      { lon: 9.01, lat: 48.01 },
      { lon: 9, lat: 48.01 },
      { lon: 9.01, lat: 48 },
    ];
    expect(readCappedAnswer(b, hits).estimatedTotal).toBe(4);
  });
});

describe('readPatches', () => {
  const b: BBox = [9, 48, 9.016, 48.016]; // a 16 x 16 grid of 0.001° cells

  it('takes cells with hits as complete and guesses the others from the cells with hits near them', () => {
    const hits: Point[] = [
      ...Array.from({ length: 10 }, () => ({ lon: 9.0005, lat: 48.0005 })), // 10 in the south-west cell
      { lon: 9.0155, lat: 48.0155 }, // 1 in the north-east cell
    ];
    const r = readPatches(b, hits);
    expect(r.hits).toHaveLength(11);
    expect(r.unseen).toHaveLength(16 * 16 - 2);
    const at = (lon: number, lat: number): number => r.unseen.find((u) => Math.abs(u.lon - lon) < 1e-9 && Math.abs(u.lat - lat) < 1e-9)!.expected;
    // Next to the dense cell the guess is near 10, next to the sparse one near 1, and between the two.
    expect(at(9.0015, 48.0005)).toBeGreaterThan(8);
    expect(at(9.0145, 48.0155)).toBeLessThan(3);
    expect(at(9.0075, 48.0075)).toBeGreaterThan(1);
    expect(at(9.0075, 48.0075)).toBeLessThan(10);
    expect(r.unseenExpected).toBeCloseTo(r.unseen.reduce((s, u) => s + u.expected, 0), 6);
  });

  it('guesses nothing where every cell has hits, and nothing at all without hits', () => {
    const everywhere: Point[] = [];
    for (let i = 0; i < 16; i++) for (let j = 0; j < 16; j++) everywhere.push({ lon: 9.0005 + i * 0.001, lat: 48.0005 + j * 0.001 });
    expect(readPatches(b, everywhere).unseen).toHaveLength(0);
    expect(readPatches(b, []).unseenExpected).toBe(0);
  });
});

describe('splitTile', () => {
  const opts = { maxPerRequest: 500, minTileSizeDeg: 0.0005 };

  it('partitions the parent exactly, on snapped edges, with ids that name their parent', () => {
    const children = splitTile(ROOT, capped(ROOT, 500), opts);
    if (children === 'too-small') throw new Error('unexpected too-small');
    expect(children.length).toBe(32); // the default ceiling: the probe sees a dense core
    expect(overlaps(children)).toBe(0);
    expect(totalAreaDeg2(children)).toBeCloseTo(areaDeg2(ROOT.bbox), 12);
    for (const c of children) {
      expect(c.depth).toBe(1);
      expect(c.parentId).toBe(ROOT.id);
      expect(c.id.startsWith('1/')).toBe(true);
      for (const v of c.bbox) expect(Math.round(v * 1e5) / 1e5).toBe(v);
    }
  });

  it('cuts where the pins are: a tile whose hits crowd one corner gets small children there', () => {
    const tile: Tile = { id: 'c', bbox: [9, 48, 9.02, 48.02], depth: 2 };
    // 200 hits in the south-west 2 km², the nearest-first answer of a tile centred elsewhere would
    // not look like this, but a server returning arbitrary hits might: cuts must still follow them.
    const hits: Point[] = [];
    for (let i = 0; i < 200; i++) hits.push({ lon: 9 + 0.00002 * i, lat: 48 + 0.00001 * ((i * 37) % 200) });
    const children = splitTile(tile, hits, { maxPerRequest: 200, minTileSizeDeg: 0.0001 });
    if (children === 'too-small') throw new Error('unexpected too-small');
    const holding = children.filter((c) => c.bbox[0] <= 9.004 && c.bbox[1] <= 48.002);
    const others = children.filter((c) => !holding.includes(c));
    expect(holding.length).toBeGreaterThan(0);
    expect(Math.max(...holding.map((c) => areaDeg2(c.bbox)))).toBeLessThan(Math.min(...others.map((c) => areaDeg2(c.bbox))));
  });

  it('splits a tile barely over the cap in two at the median of the hits, along the longer side in metres', () => {
    const b: BBox = [9, 48, 9.02, 48.01]; // 1.49 km wide, 1.11 km high
    const tile: Tile = { id: 't', bbox: b, depth: 3 };
    const hits: Point[] = [];
    for (let i = 0; i < 100; i++) hits.push({ lon: 9 + 0.0002 * (i % 100) + 0.00001, lat: 48 + 0.0001 * (i % 97) });
    const children = splitTile(tile, hits, { maxPerRequest: 100, minTileSizeDeg: 0.001 });
    if (children === 'too-small') throw new Error('unexpected too-small');
    expect(children).toHaveLength(2);
    // Halfway between the 50th (9.00981) and 51st (9.01001) hit.
    expect(children[0]!.bbox).toEqual([9, 48, 9.00991, 48.01]);
    expect(children[1]!.bbox).toEqual([9.00991, 48, 9.02, 48.01]);
  });

  it('answers too-small at or below the minimum size on both axes, and splits a thin long tile along its length', () => {
    const hits = [{ lon: 9.0001, lat: 48.0001 }];
    expect(splitTile({ id: 's', bbox: [9, 48, 9.001, 48.001], depth: 9 }, hits, { maxPerRequest: 1, minTileSizeDeg: 0.001 })).toBe('too-small');
    const thin = splitTile({ id: 'l', bbox: [9, 48, 9.01, 48.0005], depth: 9 }, hits, { maxPerRequest: 1, minTileSizeDeg: 0.001 });
    if (thin === 'too-small') throw new Error('unexpected too-small');
    expect(thin.length).toBeGreaterThanOrEqual(2);
    for (const c of thin) expect([c.bbox[1], c.bbox[3]]).toEqual([48, 48.0005]);
  });

  it('drops children that miss a polygon region', () => {
    const region = {
      geojson: { type: 'Polygon' as const, coordinates: [[[9, 48], [9.01, 48], [9, 48.01], [9, 48]]] },
    };
    const tile: Tile = { id: 'p', bbox: [9, 48, 9.01, 48.01], depth: 0 };
    // All hits at the centre: the seen disc is a dot, the guessed rest asks for many children.
    const hits: Point[] = Array.from({ length: 10 }, () => ({ lon: 9.005, lat: 48.005 }));
    const children = splitTile(tile, hits, { maxPerRequest: 10, minTileSizeDeg: 0.0001, maxChildren: 16, region });
    if (children === 'too-small') throw new Error('unexpected too-small');
    const all = splitTile(tile, hits, { maxPerRequest: 10, minTileSizeDeg: 0.0001, maxChildren: 16 });
    if (all === 'too-small') throw new Error('unexpected too-small');
    expect(children.length).toBeLessThan(all.length);
    // Every dropped child lies wholly beyond the diagonal lon + lat = 9.01 + 48 (in offsets).
    const kept = new Set(children.map((c) => c.id));
    for (const c of all) if (!kept.has(c.id)) expect(c.bbox[0] - 9 + (c.bbox[1] - 48)).toBeGreaterThan(0.01 - 1e-12);
  });

  it('rejects nonsense options', () => {
    expect(() => splitTile(ROOT, [], { maxPerRequest: 0, minTileSizeDeg: 0.001 })).toThrow(InvalidTilingOptionError);
    expect(() => splitTile(ROOT, [], { maxPerRequest: 10, minTileSizeDeg: 0.001, fill: 1.5 })).toThrow(InvalidTilingOptionError);
  });
});

describe("splitTile reading a child's answer against its parent's (recapture)", () => {
  // A tile of 2,000 pins spread evenly, asked with max 150 in a fresh random order per request.
  const rand = makeRng(7);
  const box: BBox = [9, 48, 9.1, 48.1];
  const pins: Point[] = Array.from({ length: 2_000 }, () => ({ lon: 9 + rand() * 0.1, lat: 48 + rand() * 0.1 }));
  const sample = (from: readonly Point[], n: number): Point[] => {
    const pool = [...from];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  };
  const inBox = (b: BBox) => (p: Point) => p.lon >= b[0] && p.lon <= b[2] && p.lat >= b[1] && p.lat <= b[3];
  const childrenOfFirstChild = (childAnswer: (child: Tile, parentHits: readonly Point[]) => Point[]): number => {
    const memory = createSplitMemory();
    const parent: Tile = { id: '0/root', bbox: box, depth: 0 };
    const parentHits = sample(pins, 150);
    memory.observe(parent, 150, true);
    const kids = splitTile(parent, parentHits, { maxPerRequest: 150, minTileSizeDeg: 0.0005, memory });
    if (kids === 'too-small') throw new Error('the parent must split');
    const child = kids[0]!;
    memory.observe(child, 150, true);
    const grandchildren = splitTile(child, childAnswer(child, parentHits), { maxPerRequest: 150, minTileSizeDeg: 0.0005, memory });
    if (grandchildren === 'too-small') throw new Error('the child must split');
    return grandchildren.length;
  };

  it('cuts a child into more pieces when its fresh sample recaptures few of its parent hits than when it returns them all (a fixed order)', () => {
    // Random order: the child's 150 are drawn afresh from its own pins, so few of the parent's come back.
    const fresh = childrenOfFirstChild((child) => sample(pins.filter(inBox(child.bbox)), 150));
    // A fixed order: the parent's hits in the child lead its answer, which says nothing about the count.
    const fixed = childrenOfFirstChild((child, parentHits) => {
      const marked = parentHits.filter(inBox(child.bbox));
      const rest = pins.filter((p) => inBox(child.bbox)(p) && !marked.includes(p));
      return [...marked, ...rest.slice(0, 150 - marked.length)];
    });
    // The child holds about 1,000 pins: 8 or more pieces of 120; the fixed order gives the 2 x max of a run with nothing exact.
    expect(fresh).toBeGreaterThanOrEqual(5);
    expect(fixed).toBe(3);
  });
});

describe('estimateTileCount', () => {
  it('scales the probe density to the region at fill x max per tile', () => {
    // 500 pins on 1 km², region 100 km², 400 pins per tile: 50,000 / 400 = 125 tiles.
    expect(estimateTileCount(500, 1e6, 1e8, 500)).toBe(125);
    expect(estimateTileCount(500, 1e6, 1e8, 500, 0.5)).toBe(200);
    expect(estimateTileCount(0, 1e6, 1e8, 500)).toBe(1);
  });
});

describe('splitTile at the minimum tile size: the minimum follows the density', () => {
  // 3,000 pins in one 0.002° tile, the default minTileSizeDeg, 1,000 per answer: as the centre of a
  // 1,000,000-pin world is, where 71 such tiles ended capped and 21,800 pins were missing.
  const block: BBox = [9.18, 48.77, 9.1819, 48.7719]; // just under 0.002° on both axes
  const dense = uniformWorld(3000, 5, block);

  for (const order of ['distance', 'random'] as const) {
    it(`splits a still-capped minimum tile as far as its answer's density asks, and the sweep ends complete (${order} order)`, async () => {
      const start = coverRegion(dense.region, { targetTiles: 1 });
      const r = await sweep(dense, start, adaptiveSplitter(dense, { max: 1000, minTileSizeDeg: 0.002 }), 1000, order);
      const c = checkCompleteness(dense, r);
      expect(c.pins).toBe(3000);
      expect(c.ownershipDefects).toBe(0);
      expect(c.missing).toBe(0);
      expect(r.leaves.filter((l) => l.capped)).toHaveLength(0);
      for (const l of r.leaves) {
        expect(l.tile.bbox[2] - l.tile.bbox[0]).toBeGreaterThanOrEqual(PRECISION_MIN_TILE_DEG - 1e-12);
        expect(l.tile.bbox[3] - l.tile.bbox[1]).toBeGreaterThanOrEqual(PRECISION_MIN_TILE_DEG - 1e-12);
      }
      // Sized by the density, not halved blindly: a handful of requests for a floor of 3.
      expect(r.requests).toBeLessThanOrEqual(12);
    });
  }

  it('cuts the first split below the minimum to the density: a few children sized for fill x max pins each, partitioning the tile', () => {
    const tile: Tile = { id: 'd', bbox: block, depth: 5 };
    const hits = queryBox(dense, block, 1000).map((i) => pointAt(dense, i));
    const children = splitTile(tile, hits, { maxPerRequest: 1000, minTileSizeDeg: 0.002 });
    if (children === 'too-small') throw new Error('unexpected too-small');
    expect(children.length).toBeGreaterThanOrEqual(3);
    expect(children.length).toBeLessThanOrEqual(8);
    expect(overlaps(children)).toBe(0);
    expect(totalAreaDeg2(children)).toBeCloseTo(areaDeg2(block), 12);
  });

  it('answers too-small when every hit lies at one position as a request can name it: no box separates them', () => {
    const tile: Tile = { id: 'p', bbox: block, depth: 5 };
    const hits: Point[] = Array.from({ length: 1000 }, (_, i) => ({ lon: 9.181 + (i % 2) * 0.000004, lat: 48.771 }));
    expect(splitTile(tile, hits, { maxPerRequest: 1000, minTileSizeDeg: 0.002 })).toBe('too-small');
  });

  it('answers too-small at the precision of the request coordinates, however dense the answer', () => {
    const tile: Tile = { id: 'q', bbox: [9.181, 48.771, 9.181 + PRECISION_MIN_TILE_DEG, 48.771 + PRECISION_MIN_TILE_DEG], depth: 12 };
    const hits: Point[] = Array.from({ length: 100 }, (_, i) => ({ lon: 9.181 + (i % 3) * 0.00001, lat: 48.771 + (i % 2) * 0.00002 }));
    expect(splitTile(tile, hits, { maxPerRequest: 100, minTileSizeDeg: 0.002 })).toBe('too-small');
  });
});
