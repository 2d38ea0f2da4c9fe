import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidRateError, TokenBucket, WIRE_GUARD_MS } from '../../src/http/token-bucket.js';
import { fakeClock, maxInWindow } from './fake-clock.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Starts `n` acquisitions now and records when each is granted. */
function acquireMany(bucket: TokenBucket, n: number, now: () => number): { grants: number[]; done: Promise<void[]> } {
  const grants: number[] = [];
  const done = Promise.all(
    Array.from({ length: n }, () =>
      bucket.acquire().then(() => {
        grants.push(now());
      }),
    ),
  );
  return { grants, done };
}

describe('TokenBucket', () => {
  it('spaces grants evenly and never exceeds the rate in any one-second window', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, { clock });
    const { grants, done } = acquireMany(bucket, 35, clock.now);
    await vi.advanceTimersByTimeAsync(5000);
    await done;

    expect(grants).toHaveLength(35);
    expect(grants.slice(0, 5)).toEqual([0, 100, 200, 300, 400]);
    expect(grants[34]).toBe(3400);
    expect(maxInWindow(grants)).toBe(10);
  });

  it('holds floor(rate) per window for fractional rates and float intervals', async () => {
    for (const [rate, bound] of [
      [2.5, 2],
      [3, 3],
      [7, 7],
      [0.5, 1],
    ] as const) {
      const clock = fakeClock();
      const bucket = new TokenBucket(rate, { clock });
      const { grants, done } = acquireMany(bucket, 20, clock.now);
      await vi.advanceTimersByTimeAsync(60_000);
      await done;
      expect(grants).toHaveLength(20);
      expect(maxInWindow(grants), `rate ${rate}`).toBe(bound);
      vi.useRealTimers();
    }
  });

  it('does not save up a burst while idle', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(5, { clock });
    await bucket.acquire();
    await vi.advanceTimersByTimeAsync(10_000);
    const { grants, done } = acquireMany(bucket, 3, clock.now);
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(grants).toEqual([10_000, 10_200, 10_400]);
  });

  it('applies a lowered rate at once, including to windows that straddle the change', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, { clock });
    const { grants, done } = acquireMany(bucket, 20, clock.now);
    await vi.advanceTimersByTimeAsync(550);
    expect(grants).toEqual([0, 100, 200, 300, 400, 500]);
    bucket.setRate(2);
    await vi.advanceTimersByTimeAsync(20_000);
    await done;

    const after = grants.slice(6);
    // The second-latest grant (400) must be a full second old before the next one.
    expect(after[0]).toBe(1400);
    expect(maxInWindow(after)).toBe(2);
    // Every window holding a grant made at the new rate keeps to the new rate.
    for (const g of after) {
      const inWindowEndingAtG = grants.filter((t) => t > g - 1000 && t <= g).length;
      expect(inWindowEndingAtG).toBeLessThanOrEqual(2);
    }
    expect(maxInWindow(grants)).toBe(6);
  });

  it('applies a raised rate at once and still keeps the new ceiling', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1, { clock });
    const { grants, done } = acquireMany(bucket, 25, clock.now);
    await vi.advanceTimersByTimeAsync(2500);
    expect(grants).toEqual([0, 1000, 2000]);
    bucket.setRate(8);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(grants[3]).toBe(2500);
    expect(grants[4]).toBe(2625);
    expect(maxInWindow(grants)).toBe(8);
  });

  it('serves waiters first come, first served', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(4, { clock });
    const order: string[] = [];
    const all: Promise<void>[] = [];
    for (const name of ['a', 'b', 'c']) all.push(bucket.acquire().then(() => void order.push(name)));
    await vi.advanceTimersByTimeAsync(10);
    for (const name of ['d', 'e', 'f', 'g']) all.push(bucket.acquire().then(() => void order.push(name)));
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(all);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('rejects an aborted waiter with the signal reason and gives its turn to the next', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1, { clock });
    await bucket.acquire();
    const controller = new AbortController();
    const reason = new Error('shutdown');
    const aborted = bucket.acquire(controller.signal);
    const grants: number[] = [];
    const next = bucket.acquire().then(() => void grants.push(clock.now()));
    await vi.advanceTimersByTimeAsync(300);
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(bucket.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    await next;
    expect(grants).toEqual([1000]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const bucket = new TokenBucket(1);
    const reason = new Error('gone');
    await expect(bucket.acquire(AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(bucket.waiting).toBe(0);
  });

  it('refuses rates that are not positive and finite', () => {
    expect(() => new TokenBucket(0)).toThrow(InvalidRateError);
    expect(() => new TokenBucket(Number.NaN)).toThrow(InvalidRateError);
    expect(() => new TokenBucket(1).setRate(-1)).toThrow(InvalidRateError);
    expect(() => new TokenBucket(1).setRate(Number.POSITIVE_INFINITY)).toThrow(InvalidRateError);
  });

  it('counts a grant whose write is reported from that write, and holds the next while it is pending', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1, { clock });
    const first = await bucket.acquire();
    // The transport will report the write (a connection still to be made): pending until then.
    first.expectWire();
    let secondAt: number | undefined;
    const second = bucket.acquire().then((grant) => {
      secondAt = clock.now();
      return grant;
    });
    await vi.advanceTimersByTimeAsync(5000);
    // A pending request may leave at any moment: no other is granted in the meantime.
    expect(secondAt).toBeUndefined();
    first.wrote();
    await vi.advanceTimersByTimeAsync(2000);
    await second;
    // Counted at its write (5000) and the guard after it: the next a full second later.
    expect(secondAt).toBe(5000 + WIRE_GUARD_MS + 1000);
  });

  it('counts a pending grant in every window until its write, then at its write', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(2, { clock });
    const a = await bucket.acquire();
    a.expectWire();
    const { grants, done } = acquireMany(bucket, 2, clock.now);
    await vi.advanceTimersByTimeAsync(700);
    // b at 500 (a pending and b make two); c waits for b to leave the window at 1500.
    expect(grants).toEqual([500]);
    a.wrote();
    await vi.advanceTimersByTimeAsync(2000);
    await done;
    // a now counts at 710: c waits for b (500) to leave, then still holds a window of two with a.
    expect(grants).toEqual([500, 1500]);
    expect(maxInWindow([700 + WIRE_GUARD_MS, ...grants])).toBe(2);
    // A grant that ends without a reported write (it failed before) is counted when it ends.
    const d = await bucket.acquire();
    d.expectWire();
    d.settled();
    d.wrote();
    expect(bucket.waiting).toBe(0);
  });
});
