/** The pilot's pure parts (src/tiling/pilot.ts): the verdict read from a first answer, the plan from pilot pins, the ratio. */
import { describe, expect, it } from 'vitest';
import { makeTile } from '../../src/tiling/geo.js';
import { ownsPoint } from '../../src/tiling/index.js';
import { FALLBACK_EFFICIENCY, PILOT_FILL, RatioEstimate, blockFallsBack, pilotBlocks, pilotVerdict, planFromPilot, pinsIn, type TypedHit } from '../../src/tiling/pilot.js';
import type { BBox } from '../../src/tiling/index.js';
import { rng } from './harness.js';

type T = 'STOP' | 'POI_POINT' | 'PARKING';
const BOX: BBox = [9.0, 48.7, 9.2, 48.8];

/** Hits in two towns; `stopsIn` says which town the stops are in (both: they co-locate with the POIs). */
function sample(stopsIn: 'both' | 'west', seed = 1): TypedHit<T>[] {
  const rand = rng(seed);
  const town = (west: boolean) => ({ lon: (west ? 9.03 : 9.17) + rand() * 0.02, lat: 48.72 + rand() * 0.02 });
  const hits: TypedHit<T>[] = [];
  for (let i = 0; i < 130; i++) hits.push({ ...town(i % 2 === 0), type: 'POI_POINT' });
  for (let i = 0; i < 20; i++) hits.push({ ...town(stopsIn === 'west' || i % 2 === 0), type: 'STOP' });
  return hits;
}

describe('pilotVerdict', () => {
  it('takes the sparse type as the pilot when it lies where the rest lies, with their ratio', () => {
    const v = pilotVerdict(sample('both'), ['STOP', 'PARKING', 'POI_POINT']);
    expect(v.pilot).toBe('STOP');
    expect(v.planned).toEqual(['POI_POINT']);
    expect(v.ratio).toBeCloseTo(130 / 20, 5);
    expect(v.predictedCost).toBeLessThan(2);
  });

  it("keeps today's splitter when the sparse type lies elsewhere, or the answer holds one type", () => {
    const apart = pilotVerdict(sample('west'), ['STOP', 'PARKING', 'POI_POINT']);
    expect(apart.pilot).toBeUndefined();
    expect(apart.reason).toMatch(/no type .* lies where another lies/);
    const one = pilotVerdict(sample('both').filter((h) => h.type === 'POI_POINT'), ['STOP']);
    expect(one.pilot).toBeUndefined();
    expect(one.reason).toBe('one type in the first answer');
  });

  it('does not take a pilot from a handful of hits', () => {
    const hits = sample('both').filter((h, i) => h.type !== 'STOP' || i % 3 === 0);
    expect(hits.filter((h) => h.type === 'STOP').length).toBeLessThan(12);
    expect(pilotVerdict(hits, ['STOP']).pilot).toBeUndefined();
  });
});

describe('pilotVerdict with strata the sweep cannot ask', () => {
  it('skips a candidate the caller rules out, and takes the best admissible one', () => {
    // PARKING lies with the POIs too: as the pilot it would leave a stratum of PARKING alone.
    const rand = rng(3);
    const hits: TypedHit<T>[] = [...sample('both')];
    for (let i = 0; i < 20; i++) hits.push({ lon: (i % 2 === 0 ? 9.03 : 9.17) + rand() * 0.02, lat: 48.72 + rand() * 0.02, type: 'PARKING' });
    const free = pilotVerdict(hits, ['PARKING', 'STOP', 'POI_POINT']);
    expect(free.pilot).toBe('PARKING');
    const v = pilotVerdict(hits, ['PARKING', 'STOP', 'POI_POINT'], undefined, (pilot) => pilot !== 'PARKING');
    expect(v.pilot).toBe('STOP');
    expect(v.planned).toContain('POI_POINT');
    const none = pilotVerdict(hits, ['PARKING', 'STOP', 'POI_POINT'], undefined, () => false);
    expect(none.pilot).toBeUndefined();
  });
});

describe('blockFallsBack', () => {
  it('falls back when a block costs more than FALLBACK_EFFICIENCY requests per floor, plus one', () => {
    // Floor of 300 pins at max 150: 2 requests; the bound is 2.5 x 2 + 1 = 6.
    expect(FALLBACK_EFFICIENCY).toBe(2.5);
    expect(blockFallsBack(6, 300, 150)).toBe(false);
    expect(blockFallsBack(7, 300, 150)).toBe(true);
    // A block that found nothing still has a floor of one request.
    expect(blockFallsBack(3, 0, 150)).toBe(false);
    expect(blockFallsBack(4, 0, 150)).toBe(true);
  });
});

describe('planFromPilot and pilotBlocks', () => {
  const rand = rng(5);
  const pairs: number[] = [];
  for (let i = 0; i < 600; i++) pairs.push(9.0 + rand() * 0.2, 48.7 + rand() * 0.1);
  const pins = Float64Array.from(pairs);
  const block = makeTile(BOX, 0);

  it('sizes each tile for fill x max of the planned types: max / ratio pilot pins', () => {
    const tiles = planFromPilot(block, pins, 10, { maxPerRequest: 200, minTileSizeDeg: 0.0005 });
    // 600 pilot pins at 20 per tile's max and 0.8 fill (16 each): about 38 tiles.
    expect(tiles.length).toBe(Math.ceil(600 / Math.floor(PILOT_FILL * 20)));
    for (const t of tiles) expect(pinsIn(pins, t.bbox).length / 2).toBeLessThanOrEqual(20);
    // The tiles partition the block: every pilot pin has exactly one owner.
    for (let i = 0; i < pins.length; i += 2) {
      const p = { lon: pins[i]!, lat: pins[i + 1]! };
      expect(tiles.filter((t) => ownsPoint(t, p, BOX)).length).toBe(1);
    }
  });

  it('leaves a block without pilot pins whole, for the splitter to find what lies there', () => {
    expect(planFromPilot(block, new Float64Array(0), 10, { maxPerRequest: 200, minTileSizeDeg: 0.0005 })).toEqual([block]);
  });

  it('cuts the region into about the asked number of blocks of equal pilot count', () => {
    const blocks = pilotBlocks({ bbox: BOX }, pins, { maxPerRequest: 200, minTileSizeDeg: 0.0005, blocks: 6 });
    expect(blocks.length).toBe(6);
    for (const b of blocks) expect(pinsIn(pins, b.bbox).length / 2).toBeGreaterThanOrEqual(90);
  });
});

describe('RatioEstimate', () => {
  it('starts at the prior and moves to what the done blocks show', () => {
    const r = new RatioEstimate(5);
    expect(r.value).toBe(5);
    r.observe(2000, 200);
    expect(r.value).toBeCloseTo((2000 + 5 * 20) / 220, 5);
    expect(() => new RatioEstimate(0)).toThrow(/prior/);
  });
});
