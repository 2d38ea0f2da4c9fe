import { describe, expect, it } from 'vitest';
import { coverRegion, createCapDetector, createSpatialCheck, planFromKnownPoints, splitTile } from '../../src/tiling/index.js';
import type { AskBox, BBox, BoxAnswer, Tile } from '../../src/tiling/index.js';
import { clusteredWorld, pointAt, queryBox, type Order, type World } from './harness.js';

const REGION: BBox = [9.05, 48.7, 9.3, 48.85];
const grid = (n: number): Tile[] => coverRegion({ bbox: REGION }, { targetTiles: n });

/** A server over `w`: every box answers its pins in `order`, cut at `max`, or at `silentCap` without a word. */
function server(w: World, max: number, order: Order, silentCap = Infinity): { answer: (t: Tile) => BoxAnswer; ask: AskBox; asked: Tile[] } {
  const asked: Tile[] = [];
  const answer = (t: Tile): BoxAnswer => {
    const hits = queryBox(w, t.bbox, Math.min(max, silentCap), order);
    return { received: hits.length, keys: hits.map(String), points: hits.map((i) => pointAt(w, i)) };
  };
  return {
    answer,
    asked,
    ask: async (t) => {
      asked.push(t);
      return answer(t);
    },
  };
}

const orders: Order[] = ['distance', 'id', 'random'];

describe('createCapDetector: a suspected cap changes nothing until a request proves it', () => {
  it('night one: a first answer below max is checked with its emptiest quarter, and a silent cap is proved (every order)', async () => {
    const w = clusteredWorld(20_000, 3);
    for (const order of orders) {
      const s = server(w, 500, order, 120);
      const d = createCapDetector();
      const root = grid(1)[0] as Tile;
      const o = await d.observe(root, s.answer(root), 500, s.ask);
      expect(o.max, order).toBe(120);
      expect(d.effectiveCap).toBe(120);
      expect(s.asked).toHaveLength(1);
    }
  });

  it('night one on an honest server: the check clears the first answer below max, one request in all', async () => {
    const w = clusteredWorld(300, 4);
    const s = server(w, 500, 'distance');
    const d = createCapDetector();
    const root = grid(1)[0] as Tile;
    expect((await d.observe(root, s.answer(root), 500, s.ask)).max).toBe(500);
    for (const t of grid(16)) expect((await d.observe(t, s.answer(t), 500, s.ask)).max).toBe(500);
    expect(d.effectiveCap).toBeUndefined();
    expect(d.confirmations).toEqual({ sent: 1, cleared: 1 });
  });

  it('once any answer reached max, nothing is suspected and nothing is asked', async () => {
    const d = createCapDetector();
    const s = server(clusteredWorld(20_000, 3), 150, 'distance');
    const tiles = grid(64);
    for (const t of tiles) await d.observe(t, s.answer(t), 150, s.ask);
    expect(s.asked).toEqual([]);
    expect(d.effectiveCap).toBeUndefined();
  });

  it('tiles planned at pin medians answering equal counts below what the plan knew: one united box clears it', async () => {
    const w = clusteredWorld(3_000, 5);
    const points = Array.from({ length: w.lon.length }, (_, i) => pointAt(w, i));
    const planned = planFromKnownPoints({ bbox: REGION }, points, { maxPerRequest: 150, minTileSizeDeg: 0.001 });
    const s = server(w, 150, 'distance');
    const d = createCapDetector();
    // A night two where three tiles each lost objects down to the same count, lower than all the others so far.
    const low = Math.min(...planned.map((t) => t.known ?? 0)) - 3;
    let redo: Tile[] = [];
    for (const [i, t] of planned.entries()) {
      const a = i < 3 ? { ...s.answer(t), received: low } : s.answer(t);
      const o = await d.observe(t, a, 150, s.ask);
      expect(o.max).toBe(150);
      redo = [...redo, ...o.redo];
    }
    expect(s.asked).toHaveLength(1);
    expect(d.effectiveCap).toBeUndefined();
    expect(redo).toEqual([]);
  });

  it('tiles planned from known pins under a real silent cap: proved by a united box, the earlier tiles handed back once', async () => {
    const w = clusteredWorld(3_000, 5);
    const points = Array.from({ length: w.lon.length }, (_, i) => pointAt(w, i));
    const planned = planFromKnownPoints({ bbox: REGION }, points, { maxPerRequest: 150, minTileSizeDeg: 0.001 });
    const s = server(w, 150, 'id', 60);
    const d = createCapDetector();
    const redo: Tile[] = [];
    const judged: number[] = [];
    for (const t of planned) {
      const o = await d.observe(t, s.answer(t), 150, s.ask);
      judged.push(o.max);
      redo.push(...o.redo);
    }
    expect(d.effectiveCap).toBe(60);
    expect(s.asked).toHaveLength(1);
    // The two tiles judged before the third completed the suspicion are asked again; the third is judged by the cap.
    expect(redo.map((t) => t.id)).toEqual(planned.slice(0, 2).map((t) => t.id));
    expect(judged.slice(0, 2)).toEqual([150, 150]);
    expect(judged.slice(2).every((m) => m === 60)).toBe(true);
  });

  it('answers it waits for are judged by the confirmation under way', async () => {
    const w = clusteredWorld(20_000, 3);
    const s = server(w, 500, 'distance', 120);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slowAsk: AskBox = async (t) => {
      await gate;
      return s.ask(t);
    };
    const d = createCapDetector();
    const [root, other] = [grid(1)[0] as Tile, grid(4)[0] as Tile];
    const first = d.observe(root, s.answer(root), 500, slowAsk);
    const second = d.observe(other, s.answer(other), 500, slowAsk);
    release();
    expect((await first).max).toBe(120);
    expect((await second).max).toBe(120);
  });
});

describe('createSpatialCheck: a server answering full at every size', () => {
  /** Every box answers `max` objects spread over it. */
  const fullbox =
    (max: number) =>
    (t: Tile): BoxAnswer => ({
      received: max,
      keys: Array.from({ length: max }, (_, i) => `${t.id}:${i}`),
      points: Array.from({ length: max }, (_, i) => ({ lon: t.bbox[0] + ((t.bbox[2] - t.bbox[0]) * ((i * 37) % 101)) / 101, lat: t.bbox[1] + ((t.bbox[3] - t.bbox[1]) * ((i * 61) % 103)) / 103 })),
    });

  it('stops a branch after four full generations, proved by one probe of about a metre', async () => {
    const check = createSpatialCheck();
    const answer = fullbox(100);
    const asked: Tile[] = [];
    const ask: AskBox = async (t) => (asked.push(t), answer(t));
    let tile = grid(1)[0] as Tile;
    const verdicts: string[] = [];
    for (let level = 0; level < 4; level++) {
      verdicts.push(await check.judgeFull(tile, answer(tile), 100, ask));
      const children = splitTile(tile, answer(tile).points, { maxPerRequest: 100, minTileSizeDeg: 0.0001 });
      if (children === 'too-small') throw new Error('unexpected too-small');
      tile = children[0] as Tile;
    }
    expect(verdicts).toEqual(['split', 'split', 'split', 'untrusted']);
    expect(asked).toHaveLength(1);
    const probe = asked[0]!.bbox;
    expect(probe[2] - probe[0]).toBeLessThan(0.00002);
    expect(check.evidence).toMatch(/a box of about 1 m .* answered 100 objects/);
  });

  it('lets an honest dense branch go on: the probe clears it, and the next probe waits for a longer run', async () => {
    // A town with one very dense spot (300 objects within about 20 m: a large station): the branch
    // holding it answers full for many generations while every sibling answers below max.
    const town = clusteredWorld(5_000, 3);
    const n = town.lon.length + 300;
    const lon = new Float64Array(n);
    const lat = new Float64Array(n);
    lon.set(town.lon);
    lat.set(town.lat);
    for (let i = town.lon.length; i < n; i++) {
      lon[i] = 9.1812 + ((i * 37) % 29) * 0.00001;
      lat[i] = 48.7841 + ((i * 53) % 17) * 0.00001;
    }
    const w: World = { ...town, lon, lat };
    const s = server(w, 30, 'distance');
    const check = createSpatialCheck();
    let tile = grid(1)[0] as Tile;
    const verdicts: string[] = [];
    for (let level = 0; level < 6; level++) {
      const a = s.answer(tile);
      if (a.received < 30) break;
      verdicts.push(await check.judgeFull(tile, a, 30, s.ask));
      const children = splitTile(tile, a.points, { maxPerRequest: 30, minTileSizeDeg: 0.0001 });
      if (children === 'too-small') break;
      // Follow the child holding the dense spot.
      const next = children.find((c) => c.bbox[0] <= 9.1813 && c.bbox[2] >= 9.1813 && c.bbox[1] <= 48.7842 && c.bbox[3] >= 48.7842);
      if (next === undefined) break;
      tile = next;
    }
    expect(verdicts.length).toBeGreaterThanOrEqual(4);
    expect(verdicts.every((v) => v === 'split')).toBe(true);
    expect(check.probes).toBe(1);
    expect(check.stopped).toBe(0);
  });
});
