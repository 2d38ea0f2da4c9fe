import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/util/heap-growth.js';

describe('boundHeapGrowth', () => {
  it("bounds the heap's growth from the start, and keeps an operator's own --heap-growing-percent", () => {
    expect(boundHeapGrowth([])).toBe(true);
    expect(boundHeapGrowth(['--heap-growing-percent=80'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=80'])).toBe(false);
    expect(boundHeapGrowth(['--max-old-space-size=512'])).toBe(true);
  });
});
