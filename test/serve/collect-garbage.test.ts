import { describe, expect, it } from 'vitest';
import { collectAfterLargeAnswer, LARGE_ANSWER_BYTES } from '../../src/serve/collect-garbage.js';

/** Issue 54.3: a large answer's buffer, dropped once sent, is given back by the collection scheduled after it. */
describe('serve: memory of a large answer given back', () => {
  it('frees a dropped answer-sized buffer at the scheduled collection', async () => {
    // An answer sent on and dropped, as session.ts does (in a frame of its own, which ends).
    const held = ((): number => {
      const answer = Buffer.alloc(4 * LARGE_ANSWER_BYTES, 1);
      return answer.length > 0 ? process.memoryUsage().external : 0;
    })();
    collectAfterLargeAnswer();
    // Real time, not fake timers: test files share a worker process (isolate: false), so a collection
    // another file scheduled may be the one pending; whichever it is, the last pass runs within 5 s.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    // The buffer's 128 MB are no longer counted: collected without waiting on V8's own schedule.
    expect(held - process.memoryUsage().external).toBeGreaterThanOrEqual(3 * LARGE_ANSWER_BYTES);
  }, 20_000);
});
