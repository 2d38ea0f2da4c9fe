import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/util/heap-growth.js';

describe('boundHeapGrowth', () => {
  it('bounds the heap growth once the heap passes the threshold, and says so once', () => {
    const told: number[] = [];
    const small = boundHeapGrowth({ atBytes: Number.MAX_SAFE_INTEGER, execArgv: [] });
    expect(small.bounded).toBe(false);
    small.stop();
    const passed = boundHeapGrowth({ atBytes: 0, execArgv: [], onBound: (bytes) => told.push(bytes) });
    expect(passed.bounded).toBe(true);
    expect(told).toHaveLength(1);
    expect(told[0]).toBeGreaterThan(0);
    passed.stop();
  });

  it("keeps an operator's own --heap-growing-percent", () => {
    const told: number[] = [];
    for (const own of ['--heap-growing-percent=80', '--heap_growing_percent=80']) {
      const kept = boundHeapGrowth({ atBytes: 0, execArgv: [own], onBound: (bytes) => told.push(bytes) });
      expect(kept.bounded).toBe(false);
      kept.stop();
    }
    expect(told).toEqual([]);
  });
});
