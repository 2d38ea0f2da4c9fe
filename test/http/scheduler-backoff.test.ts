import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import type { SchedulerEvent } from '../../src/http/types.js';
import { fakeClock } from './fake-clock.js';
import { Flaky, settle, wait } from './scheduler-fakes.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createRequestScheduler under 429 (adaptive rate)', () => {
  it('halves the rate on 429, once per overload, and recovers up to the ceiling but not above', async () => {
    const clock = fakeClock();
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 10,
      concurrency: 4,
      recoverAfterSuccesses: 3,
      recoverStep: 2,
      clock,
      random: () => 0,
      onEvent: (e) => events.push(e),
    });
    const rates = (): number[] => events.flatMap((e) => (e.kind === 'rate' ? [e.requestsPerSecond] : []));

    // Four requests in flight together all get 429: one overload, one halving.
    const tooMany = Array.from({ length: 4 }, () =>
      scheduler.run('coordInfo', async (_signal, attemptNo) => {
        await wait(500);
        if (attemptNo === 1) throw new Flaky('429', true, 0, true);
        return attemptNo;
      }),
    );
    await vi.advanceTimersByTimeAsync(5000);
    expect(await Promise.all(tooMany)).toEqual([2, 2, 2, 2]);
    // The three first retries, sent at 5/s, earn one step back; the fourth was sent before that step.
    expect(rates()).toEqual([5, 7]);
    expect(scheduler.stats().rateLimitedReplies).toBe(4);

    const again = await settle(
      scheduler.run('coordInfo', async (_s, n) => {
        if (n === 1) throw new Flaky('429', true, 0, true);
        return n;
      }),
      5000,
    );
    expect(again).toEqual({ status: 'fulfilled', value: 2 });
    expect(scheduler.requestsPerSecond).toBe(3.5);

    let seen = 0;
    const successes = Array.from({ length: 40 }, () =>
      scheduler.run('coordInfo', async () => {
        seen = Math.max(seen, scheduler.requestsPerSecond);
      }),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    await Promise.all(successes);
    expect(rates()).toEqual([5, 7, 3.5, 5.5, 7.5, 9.5, 10]);
    expect(events.filter((e) => e.kind === 'rate').map((e) => (e.kind === 'rate' ? e.reason : ''))).toEqual([
      'backoff',
      'recover',
      'backoff',
      'recover',
      'recover',
      'recover',
      'recover',
    ]);
    expect(scheduler.requestsPerSecond).toBe(10);
    expect(seen).toBe(10);
  });

  it('does not back off below the floor', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 1, concurrency: 1, retries: 10, clock, minRequestsPerSecond: 0.3 });
    const result = scheduler.run('addInfo', async (_s, n) => {
      if (n <= 5) throw new Flaky('429', true, 0, true);
      return n;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await result).toBe(6);
    expect(scheduler.requestsPerSecond).toBe(0.3);
  });
});
