import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectAfterLargeAnswer, LARGE_ANSWER_BYTES } from '../../src/serve/collect-garbage.js';

/** Issue 54.3: a large answer's buffer, dropped once sent, is given back by the collection scheduled after it. */
describe('serve: memory of a large answer given back', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('frees a dropped answer-sized buffer at the scheduled collection', () => {
    vi.useFakeTimers();
    // An answer sent on and dropped, as session.ts does (in a frame of its own, which ends).
    const held = ((): number => {
      const answer = Buffer.alloc(4 * LARGE_ANSWER_BYTES, 1);
      return answer.length > 0 ? process.memoryUsage().external : 0;
    })();
    collectAfterLargeAnswer();
    vi.advanceTimersByTime(1_000);
    // The buffer's 128 MB are no longer counted: collected without waiting on V8's own schedule.
    expect(held - process.memoryUsage().external).toBeGreaterThanOrEqual(3 * LARGE_ANSWER_BYTES);
    vi.advanceTimersByTime(5_000);
  });
});
