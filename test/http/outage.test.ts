import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpConnectionError, RetriesExhaustedError, UpstreamOutageError } from '../../src/http/errors.js';
import { createRequestScheduler, OUTAGE_PROBE_OPERATION } from '../../src/http/scheduler.js';
import type { SchedulerEvent } from '../../src/http/types.js';
import { fakeClock } from './fake-clock.js';

afterEach(() => {
  vi.useRealTimers();
});

/** An upstream that can be switched off: every attempt sent while it is down is refused. */
function upstream() {
  const state = { down: false, sent: 0, sentWhileDown: 0 };
  const attempt = async (): Promise<string> => {
    state.sent += 1;
    if (state.down) {
      state.sentWhileDown += 1;
      throw new HttpConnectionError('coordInfo', { cause: new Error('refused'), code: 'ECONNREFUSED' });
    }
    return 'answer';
  };
  return { state, attempt };
}

function scheduler(events: SchedulerEvent[], maxWaitMs: number) {
  const clock = fakeClock();
  const s = createRequestScheduler({ requestsPerSecond: 8, concurrency: 4, baseDelayMs: 500, clock, random: () => 0.5, onEvent: (e) => events.push(e) });
  s.watchOutages({ maxWaitMs });
  return { s, clock };
}

describe('the outage circuit', () => {
  it('an upstream down for two minutes: sending stops, a few probes a minute ask, every call goes on where it was', async () => {
    const events: SchedulerEvent[] = [];
    const { s } = scheduler(events, 900_000);
    const up = upstream();
    await s.run('coordInfo', up.attempt);
    up.state.down = true;
    const calls = Array.from({ length: 60 }, () => s.run('coordInfo', up.attempt));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(events.some((e) => e.kind === 'outage' && e.state === 'down')).toBe(true);
    up.state.down = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 60 }, () => 'answer'));
    // Four calls in flight met the outage, then one probe at a time: 1, 2, 4, … 30 s apart.
    expect(up.state.sentWhileDown).toBeLessThanOrEqual(20);
    const stats = s.stats();
    expect(stats.outage.outages).toBe(1);
    expect(stats.outage.probes).toBeGreaterThan(3);
    expect(stats.requestsByOperation[OUTAGE_PROBE_OPERATION]).toBe(stats.outage.probes);
    expect(stats.requestsSent).toBe(up.state.sent);
    expect(stats.failures).toBe(0);
    expect(events.filter((e) => e.kind === 'outage').map((e) => (e as { state: string }).state)).toEqual(['down', 'up']);
  });

  it('an upstream down past the bound: every waiting call fails with UpstreamOutageError (exit 75) within the bound', async () => {
    const events: SchedulerEvent[] = [];
    const { s, clock } = scheduler(events, 60_000);
    const up = upstream();
    await s.run('coordInfo', up.attempt);
    up.state.down = true;
    const started = clock.now();
    const calls = Array.from({ length: 10 }, () => s.run('coordInfo', up.attempt).then(() => 'answered', (e: unknown) => e));
    let ended = 0;
    void Promise.all(calls).then(() => (ended = clock.now()));
    await vi.advanceTimersByTimeAsync(120_000);
    const outcomes = await Promise.all(calls);
    for (const o of outcomes) {
      expect(o).toBeInstanceOf(UpstreamOutageError);
      expect((o as UpstreamOutageError).exitCode).toBe(75);
    }
    expect(ended - started).toBeLessThanOrEqual(60_000 + 10_000);
    // A later call does not send either.
    const sent = up.state.sent;
    await expect(s.run('coordInfo', up.attempt)).rejects.toBeInstanceOf(UpstreamOutageError);
    expect(up.state.sent).toBe(sent);
    expect(events.filter((e) => e.kind === 'outage').map((e) => (e as { state: string }).state)).toEqual(['down', 'gave-up']);
  });

  it('a unit that fails on its own while the upstream answers others keeps its retries and fails', async () => {
    const events: SchedulerEvent[] = [];
    const { s } = scheduler(events, 900_000);
    let broken = 0;
    const ok = async (): Promise<string> => 'answer';
    const failing = async (): Promise<string> => {
      broken += 1;
      throw Object.assign(new Error('HTTP 503'), { retryable: true, outage: true });
    };
    await s.run('servingLines', ok);
    const lone = s.run('servingLines', failing).then(() => undefined, (e: unknown) => e);
    const others = Array.from({ length: 10 }, () => s.run('servingLines', ok));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await Promise.all(others)).toHaveLength(10);
    const error = await lone;
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(broken).toBe(5);
    expect(s.stats().outage.outages).toBe(0);
    // One probe asked whether the upstream answers before the unit was given up.
    expect(s.stats().outage.probes).toBe(1);
  });

  it('two units failing at once are no outage once the probe is answered: each keeps its own retries', async () => {
    const events: SchedulerEvent[] = [];
    const { s } = scheduler(events, 900_000);
    let broken = 0;
    await s.run('coordInfo', async () => 'answer');
    const failing = async (): Promise<string> => {
      broken += 1;
      throw Object.assign(new Error('HTTP 503'), { retryable: true, outage: true });
    };
    const both = [s.run('coordInfo', failing), s.run('coordInfo', failing)].map((p) => p.then(() => undefined, (e: unknown) => e));
    await vi.advanceTimersByTimeAsync(120_000);
    for (const e of await Promise.all(both)) expect(e).toBeInstanceOf(RetriesExhaustedError);
    expect(broken).toBe(10);
    expect(s.stats().outage.outages).toBe(0);
  });

  it('a stop signal ends the wait at once', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const s = createRequestScheduler({ requestsPerSecond: 8, concurrency: 4, clock, signal: controller.signal });
    s.watchOutages({ maxWaitMs: 900_000 });
    const up = upstream();
    await s.run('coordInfo', up.attempt);
    up.state.down = true;
    const calls = Array.from({ length: 4 }, () => s.run('coordInfo', up.attempt).then(() => undefined, (e: unknown) => e));
    await vi.advanceTimersByTimeAsync(10_000);
    controller.abort(new Error('SIGTERM'));
    await vi.advanceTimersByTimeAsync(10);
    for (const e of await Promise.all(calls)) expect(String(e)).toContain('SIGTERM');
  });
});
