import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/util/heap-growth.js';

describe('boundHeapGrowth', () => {
  it('bounds the heap growth once the heap passes the threshold', () => {
    const small = boundHeapGrowth(Number.MAX_SAFE_INTEGER, []);
    expect(small.bounded).toBe(false);
    small.stop();
    const passed = boundHeapGrowth(0, []);
    expect(passed.bounded).toBe(true);
    passed.stop();
  });

  it("keeps an operator's own --heap-growing-percent", () => {
    for (const own of ['--heap-growing-percent=80', '--heap_growing_percent=80']) {
      const kept = boundHeapGrowth(0, [own]);
      expect(kept.bounded).toBe(false);
      kept.stop();
    }
  });
});
