import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpTimeoutError, RequestBudgetExceededError, RetriesExhaustedError, RetryAfterTooLongError } from '../../src/http/errors.js';
import { createRequestScheduler, InvalidSchedulerOptionError } from '../../src/http/scheduler.js';
import type { SchedulerEvent } from '../../src/http/types.js';
import { fakeClock, maxInWindow } from './fake-clock.js';
import { Flaky, settle, wait } from './scheduler-fakes.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createRequestScheduler', () => {
  it('never has more attempts in flight than the concurrency bound', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 1000, concurrency: 3, clock });
    let inFlight = 0;
    let maxInFlight = 0;
    const calls = Array.from({ length: 20 }, (_, i) =>
      scheduler.run('stopFinder', async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await wait(50 + (i % 4) * 30);
        inFlight -= 1;
        return i;
      }),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxInFlight).toBe(3);
    expect(scheduler.requestsSent).toBe(20);
  });

  it('keeps the rate ceiling over all operations together and counts per operation', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 5, concurrency: 10, clock });
    const starts: number[] = [];
    const operations = ['coordInfo', 'servingLines', 'addInfo'];
    const calls = Array.from({ length: 30 }, (_, i) =>
      scheduler.run(operations[i % 3] ?? 'x', async () => {
        starts.push(clock.now());
        await wait(10);
      }),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(calls);
    expect(starts).toHaveLength(30);
    expect(maxInWindow(starts)).toBe(5);
    expect(starts[29]).toBe(29 * 200);
    expect(scheduler.stats().requestsByOperation).toEqual({ coordInfo: 10, servingLines: 10, addInfo: 10 });
  });

  // Fails if the token is taken before the slot: tokens pile up while slots are busy, then go out together.
  it('keeps the ceiling on send times even when slow replies free several slots at once', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 4, concurrency: 8, clock, timeoutMs: 60_000 });
    const starts: number[] = [];
    const calls = Array.from({ length: 24 }, () =>
      scheduler.run('opArea', async () => {
        starts.push(clock.now());
        // All replies come back at the same instant, every 3 s.
        await wait(3000 - (clock.now() % 3000));
      }),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    await Promise.all(calls);
    expect(maxInWindow(starts)).toBeLessThanOrEqual(4);
  });

  it('retries retryable errors with full-jitter backoff inside its bounds', async () => {
    const clock = fakeClock();
    const draws = [0.5, 0.999, 0];
    const random = vi.fn(() => draws.shift() ?? 0);
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 1000,
      concurrency: 1,
      baseDelayMs: 100,
      maxDelayMs: 150,
      clock,
      random,
      onEvent: (e) => events.push(e),
    });
    const starts: number[] = [];
    const result = scheduler.run('stopFinder', async (_signal, attemptNo) => {
      starts.push(clock.now());
      if (attemptNo < 4) throw new Flaky(`boom ${attemptNo}`, true);
      return 'ok';
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await result).toBe('ok');

    const delays = events.flatMap((e) => (e.kind === 'retry' ? [e.delayMs] : []));
    // caps: 100 * 2^0 = 100, min(150, 200) = 150, min(150, 400) = 150
    expect(delays).toEqual([50, 0.999 * 150, 0]);
    expect(random).toHaveBeenCalledTimes(3);
    expect(starts).toHaveLength(4);
    for (let i = 1; i < starts.length; i += 1) {
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(Math.floor(delays[i - 1] ?? 0));
    }
    expect(scheduler.stats().retries).toBe(3);
    expect(scheduler.requestsSent).toBe(4);
  });

  it('waits a server Retry-After up to the ceiling, and fails at once with a warning past it', async () => {
    const clock = fakeClock();
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 100,
      concurrency: 2,
      clock,
      random: () => 0,
      maxRetryAfterMs: 60_000,
      onEvent: (e) => events.push(e),
    });
    const starts: number[] = [];
    const last = new Flaky('503', true, 3_600_000);
    const result = scheduler.run('addInfo', async (_signal, attemptNo) => {
      starts.push(clock.now());
      if (attemptNo === 1) throw new Flaky('503', true, 7000);
      throw last;
    });
    const settled = Promise.allSettled([result]);
    await vi.advanceTimersByTimeAsync(6999);
    expect(starts).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    const [outcome] = await settled;
    expect(starts).toEqual([0, 7000]);
    const reason = outcome?.status === 'rejected' ? (outcome.reason as unknown) : undefined;
    expect(reason).toBeInstanceOf(RetryAfterTooLongError);
    const tooLong = reason as RetryAfterTooLongError;
    expect(tooLong).toMatchObject({ operation: 'addInfo', retryAfterMs: 3_600_000, maxRetryAfterMs: 60_000, level: 'warn', retryable: false });
    expect(tooLong.cause).toBe(last);
    expect(scheduler.requestsSent).toBe(2);
    expect(events.filter((e) => e.kind === 'retry')).toHaveLength(1);
  });

  it('stops sending at the request budget, failing further calls with the numbers', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 1000, concurrency: 4, clock, random: () => 0, maxRequests: 3 });
    let sent = 0;
    const calls = Array.from({ length: 5 }, async (_, i) =>
      scheduler.run(`op${i}`, async () => {
        sent += 1;
        return i;
      }),
    );
    const outcomes = await settle(Promise.allSettled(calls), 100);
    const results = outcomes.status === 'fulfilled' ? outcomes.value : [];
    expect(sent).toBe(3);
    expect(scheduler.requestsSent).toBe(3);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as unknown);
    expect(refused).toHaveLength(2);
    for (const error of refused) {
      expect(error).toBeInstanceOf(RequestBudgetExceededError);
      expect(error).toMatchObject({ maxRequests: 3, requestsSent: 3, retryable: false });
    }
    // Retries count against the budget too.
    const retrying = createRequestScheduler({ requestsPerSecond: 1000, concurrency: 1, clock, random: () => 0, maxRequests: 2, baseDelayMs: 1 });
    const failing = retrying.run('coordInfo', async () => {
      throw new Flaky('503', true);
    });
    const last = await settle(failing, 1000);
    expect(last.status === 'rejected' ? (last.reason as unknown) : undefined).toBeInstanceOf(RequestBudgetExceededError);
    expect(retrying.requestsSent).toBe(2);
  });

  it('frees the slot while a call sleeps before its retry', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 100, concurrency: 1, clock });
    const log: string[] = [];
    const slow = scheduler.run('addInfo', async (_s, n) => {
      log.push(`slow${n}@${clock.now()}`);
      if (n === 1) throw new Flaky('503', true, 10_000);
      return 'slow';
    });
    await vi.advanceTimersByTimeAsync(5);
    const quick = scheduler.run('stopFinder', async () => {
      log.push(`quick@${clock.now()}`);
      return 'quick';
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(await quick).toBe('quick');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await slow).toBe('slow');
    expect(log).toEqual(['slow1@0', 'quick@10', 'slow2@10000']);
  });

  it('fails at once on a non-retryable error, without retrying', async () => {
    const clock = fakeClock();
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 10,
      concurrency: 1,
      clock,
      onEvent: (e) => events.push(e),
    });
    const error = new Flaky('400 bad request', false);
    const plain = new Error('parse failure');
    const a = scheduler.run('coordInfo', async () => {
      throw error;
    });
    const b = scheduler.run('coordInfo', async () => {
      throw plain;
    });
    const [settledA, settledB] = await Promise.all([settle(a, 0), settle(b, 100)]);
    expect(settledA).toEqual({ status: 'rejected', reason: error });
    expect(settledB).toEqual({ status: 'rejected', reason: plain });
    expect(scheduler.requestsSent).toBe(2);
    expect(events.filter((e) => e.kind === 'retry')).toEqual([]);
    expect(events.filter((e) => e.kind === 'failure')).toEqual([
      { kind: 'failure', operation: 'coordInfo', attempts: 1, reason: 'Error: 400 bad request' },
      { kind: 'failure', operation: 'coordInfo', attempts: 1, reason: 'Error: parse failure' },
    ]);
  });

  it('gives up with RetriesExhaustedError carrying attempts and the last error', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 50, concurrency: 1, retries: 2, clock, random: () => 1 });
    const thrown: Flaky[] = [];
    const result = scheduler.run('servingLines', async (_signal, attemptNo) => {
      const e = new Flaky(`reset ${attemptNo}`, true);
      thrown.push(e);
      throw e;
    });
    const settled = await settle(result, 10_000);
    expect(settled.status).toBe('rejected');
    const error = (settled as PromiseRejectedResult).reason as unknown;
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    const exhausted = error as RetriesExhaustedError;
    expect(exhausted.attempts).toBe(3);
    expect(exhausted.operation).toBe('servingLines');
    expect(exhausted.retryable).toBe(false);
    expect(exhausted.cause).toBe(thrown[2]);
    expect(thrown).toHaveLength(3);
    expect(scheduler.stats()).toMatchObject({ requestsSent: 3, retries: 2, failures: 1 });
  });

  it('times an attempt out into HttpTimeoutError and retries it', async () => {
    const clock = fakeClock();
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 10,
      concurrency: 1,
      timeoutMs: 2000,
      clock,
      random: () => 0,
      onEvent: (e) => events.push(e),
    });
    const abortedAt: number[] = [];
    const result = scheduler.run('stopFinder', (signal, attemptNo) => {
      if (attemptNo === 2) return Promise.resolve('second');
      // Like fetch: rejects with the signal's reason and nothing else.
      return new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          abortedAt.push(clock.now());
          reject(signal.reason);
        });
      });
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await result).toBe('second');
    expect(abortedAt).toEqual([2000]);
    const retry = events.find((e) => e.kind === 'retry');
    expect(retry).toMatchObject({ operation: 'stopFinder', attempt: 1, reason: expect.stringContaining('HttpTimeoutError') });
  });

  it('reports exhausted timeouts with the HttpTimeoutError as cause', async () => {
    const clock = fakeClock();
    const scheduler = createRequestScheduler({ requestsPerSecond: 10, concurrency: 1, timeoutMs: 500, retries: 1, clock, random: () => 0 });
    const result = scheduler.run('opArea', (signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))));
    const settled = await settle(result, 5000);
    const error = (settled as PromiseRejectedResult).reason as RetriesExhaustedError;
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.cause).toBeInstanceOf(HttpTimeoutError);
    expect((error.cause as HttpTimeoutError).timeoutMs).toBe(500);
  });

  it('emits attempt, retry, success and failure events in order', async () => {
    const clock = fakeClock();
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 10,
      concurrency: 1,
      retries: 1,
      clock,
      random: () => 0.5,
      baseDelayMs: 1000,
      onEvent: (e) => {
        events.push(e);
        throw new Error('a broken listener must not matter');
      },
    });
    const ok = scheduler.run('stopFinder', async (_s, n) => {
      await wait(40);
      if (n === 1) throw new Flaky('reset', true);
      return 'x';
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await ok).toBe('x');
    expect(events).toEqual([
      { kind: 'attempt', operation: 'stopFinder', attempt: 1, at: 0 },
      { kind: 'retry', operation: 'stopFinder', attempt: 1, delayMs: 500, reason: 'Error: reset' },
      { kind: 'attempt', operation: 'stopFinder', attempt: 2, at: 540 },
      { kind: 'success', operation: 'stopFinder', attempt: 2, durationMs: 40 },
    ]);
  });

  it('cancels waiting and running attempts when the run signal aborts, without retrying', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const scheduler = createRequestScheduler({ requestsPerSecond: 1, concurrency: 5, clock, signal: controller.signal });
    const running = scheduler.run('opArea', (signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    const waiting = scheduler.run('opArea', async () => 'never');
    const retrying = scheduler.run('opArea', async () => {
      throw new Flaky('503', true, 60_000);
    });
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('SIGTERM');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(retrying).rejects.toBe(reason);
    expect(scheduler.requestsSent).toBe(1);
    expect(scheduler.stats().retries).toBe(0);
  });

  it('rejects options it cannot honour', () => {
    expect(() => createRequestScheduler({ requestsPerSecond: 0, concurrency: 1 })).toThrow(InvalidSchedulerOptionError);
    expect(() => createRequestScheduler({ requestsPerSecond: 1, concurrency: 0 })).toThrow(InvalidSchedulerOptionError);
    expect(() => createRequestScheduler({ requestsPerSecond: 1, concurrency: 1.5 })).toThrow(InvalidSchedulerOptionError);
    expect(() => createRequestScheduler({ requestsPerSecond: 1, concurrency: 1, retries: -1 })).toThrow(InvalidSchedulerOptionError);
    expect(() => createRequestScheduler({ requestsPerSecond: 1, concurrency: 1, timeoutMs: 0 })).toThrow(InvalidSchedulerOptionError);
    expect(() => createRequestScheduler({ requestsPerSecond: 1, concurrency: 1, maxRequests: 2.5 })).toThrow(InvalidSchedulerOptionError);
  });
});
