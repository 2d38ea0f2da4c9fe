import { describe, expect, it } from 'vitest';
import type { EfaResult, Pin } from '../../src/efa/index.js';
import { afterSilentCap, allRejected, createBoxStep, sweepBoxes, type BoxSink, type TileOutcome } from '../../src/sweep/index.js';
import { inStratum, makeTile } from '../../src/tiling/geo.js';
import type { AskBox, BBox, Tile } from '../../src/tiling/index.js';
import type { Logger } from '../../src/util/log.js';

const REGION: BBox = [9.1, 48.7, 9.2, 48.8];
const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const noAsk: AskBox = async () => undefined;

const pin = (id: string, lon: number, lat: number): Pin => ({ type: 'STOP', id, name: id, coord: { lon, lat }, motTypes: [], attrs: {} });
const result = (records: Pin[], rejects: EfaResult<Pin>['rejects'] = []): EfaResult<Pin> => ({ records, rejects, messages: [], status: 200, durationMs: 1, attempts: 2 });
const step = (max = 10, minTileSizeDeg = 0.002) => createBoxStep({ label: 'coordInfo', budget: { maxPerRequest: max, minTileSizeDeg, followDensity: false }, region: { bbox: REGION } });
const spread = (n: number, b: BBox): Pin[] =>
  Array.from({ length: n }, (_, i) => pin(`p${i}`, b[0] + ((i % 7) + 0.5) * ((b[2] - b[0]) / 7), b[1] + (Math.floor(i / 7) % 7 + 0.5) * ((b[3] - b[1]) / 7)));

describe('the box step: one answer, one outcome', () => {
  it('keeps a complete answer as done, owning only the pins on its side of a shared edge', async () => {
    const tile = makeTile([9.1, 48.7, 9.15, 48.75], 0);
    const { outcome } = await step().answer(tile, result([pin('a', 9.12, 48.72), pin('edge', 9.15, 48.72)]), noAsk);
    expect(outcome).toMatchObject({ kind: 'kept', status: 'done', received: 2, attempts: 2 });
    if (outcome.kind !== 'kept') throw new Error(outcome.kind);
    expect(outcome.inside.map((p) => p.id)).toEqual(['a', 'edge']);
    // Half-open: a pin on the tile's east edge belongs to its eastern neighbour.
    expect(outcome.owned.map((p) => p.id)).toEqual(['a']);
  });

  it('fails an answer whose records were all rejected, with the one all-rejected rule and the rejects to keep', async () => {
    const rejects = [{ operation: 'coordInfo' as const, reason: 'coordinate is not a number', raw: {} }];
    const { outcome } = await step().answer(makeTile(REGION, 0), result([], rejects), noAsk);
    expect(outcome).toMatchObject({ kind: 'failed', received: 1, attempts: 2 });
    if (outcome.kind !== 'failed') throw new Error(outcome.kind);
    expect(outcome.error).toBe(`coordInfo tile ${makeTile(REGION, 0).id}: ${allRejected({ records: [], rejects })}`);
    expect(outcome.error).toMatch(/all 1 records were rejected/);
    expect(outcome.rejects).toHaveLength(1);
  });

  it('splits an answer that reached max, and keeps one too small to split as capped', async () => {
    const big = makeTile(REGION, 0);
    const split = await step().answer(big, result(spread(10, REGION)), noAsk);
    expect(split.outcome.kind).toBe('split');
    if (split.outcome.kind !== 'split') throw new Error(split.outcome.kind);
    expect(split.outcome.children.length).toBeGreaterThan(1);
    const small = makeTile([9.1, 48.7, 9.1005, 48.7005], 0);
    const { outcome } = await step(10, 0.002).answer(small, result(spread(10, small.bbox)), noAsk);
    expect(outcome).toMatchObject({ kind: 'kept', status: 'capped', unsplit: 'too-small' });
  });

  it('marks an answer with a rejected record incomplete, naming why', async () => {
    const { outcome } = await step().answer(makeTile(REGION, 0), result([pin('a', 9.12, 48.72)], [{ operation: 'coordInfo', reason: 'no name', raw: {} }]), noAsk);
    expect(outcome).toMatchObject({ kind: 'kept', status: 'incomplete', reason: '1 record(s) rejected' });
  });
});

describe('the silent-cap post-pass', () => {
  it('re-marks only complete tiles whose answers reached the proved cap', () => {
    expect(afterSilentCap(30, 'done', 30)).toBe('capped');
    expect(afterSilentCap(30, 'done', 29)).toBe('done');
    expect(afterSilentCap(30, 'incomplete', 40)).toBe('incomplete');
    expect(afterSilentCap(undefined, 'done', 1000)).toBe('done');
  });
});

describe('sweepBoxes', () => {
  it('hands every outcome to the sink once, asks a split tile\'s children, and turns a failed request into a failed outcome', async () => {
    const taken: [string, TileOutcome['kind']][] = [];
    const sink: BoxSink = { take: (tile, outcome) => void taken.push([tile.id, outcome.kind]) };
    const root = makeTile(REGION, 0);
    let asked = 0;
    const request = async (tile: Tile): Promise<EfaResult<Pin>> => {
      asked += 1;
      if (tile.depth > 0 && asked === 2) throw new Error('connection reset');
      return result(tile.depth === 0 ? spread(10, tile.bbox) : [pin(`c${asked}`, (tile.bbox[0] + tile.bbox[2]) / 2, (tile.bbox[1] + tile.bbox[3]) / 2)]);
    };
    const end = await sweepBoxes([root], request, step(), sink, { concurrency: 1, log: quiet });
    expect(taken[0]).toEqual([root.id, 'split']);
    expect(taken.filter(([, k]) => k === 'failed')).toHaveLength(1);
    expect(taken.filter(([, k]) => k === 'kept').length).toBe(taken.length - 2);
    expect(end.requests).toBe(taken.length);
  });
});

describe('a stratum\'s tile (a pilot sweep asks some types only)', () => {
  it('splits into children of its stratum, and asks its confirming requests for its types', async () => {
    const tile = inStratum(makeTile(REGION, 0), ['STOP', 'PARKING']);
    expect(tile.id).toBe(`${makeTile(REGION, 0).id}:PARKING+STOP`);
    const probes: Tile[] = [];
    const ask: AskBox = async (probe) => (probes.push(probe), undefined);
    const { outcome } = await step().answer(tile, result(spread(10, REGION)), ask);
    if (outcome.kind !== 'split') throw new Error(outcome.kind);
    expect(outcome.children.length).toBeGreaterThan(1);
    for (const c of outcome.children) {
      expect(c.types).toEqual(['PARKING', 'STOP']);
      expect(c.parentId).toBe(tile.id);
      expect(c.id).toBe(`${makeTile(c.bbox, 1).id}:PARKING+STOP`);
    }
    // A first answer below max is checked with its emptiest quarter: asked for the same types.
    await step(20).answer(
      inStratum(makeTile(REGION, 0), ['POI_POINT']),
      result(spread(12, REGION)),
      ask,
    );
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.at(-1)?.types).toEqual(['POI_POINT']);
  });

  it('a tile of every type keeps today\'s ids and children', async () => {
    const tile = makeTile(REGION, 0);
    expect(inStratum(tile, undefined)).toBe(tile);
    const { outcome } = await step().answer(tile, result(spread(10, REGION)), noAsk);
    if (outcome.kind !== 'split') throw new Error(outcome.kind);
    for (const c of outcome.children) {
      expect(c.types).toBeUndefined();
      expect(c.id).toBe(makeTile(c.bbox, 1).id);
    }
  });
});
