import { describe, expect, it } from 'vitest';
import { InvalidTilingOptionError, coverRegion, planBudget } from '../../src/tiling/index.js';

describe('planBudget', () => {
  const tiles = coverRegion({ bbox: [9.05, 48.7, 9.3, 48.85] }, { targetTiles: 12 });

  it('counts requests per operation and the shortest run at the rate', () => {
    const b = planBudget(tiles, { coord: true, opAreaAll: true, servingLinesStops: 300, lineNames: 5, addInfo: true }, 10);
    expect(b.requests).toEqual({ coord: 12, opArea: 1, servingLines: 305, addInfo: 1 });
    expect(b.total).toBe(319);
    expect(b.minDurationSeconds).toBeCloseTo(31.9, 10);
    expect(b.coordIsLowerBound).toBe(true);
  });

  it('counts one radial OpArea request per tile and nothing for sweeps left out', () => {
    const b = planBudget(tiles, { opAreaRadial: true }, 4);
    expect(b.requests).toEqual({ coord: 0, opArea: 12, servingLines: 0, addInfo: 0 });
    expect(b.minDurationSeconds).toBe(3);
    expect(b.coordIsLowerBound).toBe(false);
  });

  it('rejects a non-positive rate', () => {
    expect(() => planBudget(tiles, { coord: true }, 0)).toThrow(InvalidTilingOptionError);
  });
});
