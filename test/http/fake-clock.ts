import { vi } from 'vitest';
import type { Clock } from '../../src/http/clock.js';

/**
 * A Clock on vitest's fake timers, starting at 0. The globals are looked up on each call so the
 * clock follows whatever vi.useFakeTimers() installed.
 */
export function fakeClock(): Clock {
  vi.useFakeTimers();
  vi.setSystemTime(0);
  return {
    now: () => Date.now(),
    setTimer: (callback, ms) => setTimeout(callback, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}

/** The largest number of times in any half-open window [t, t + windowMs). */
export function maxInWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let end = 0;
  // The busiest half-open window can always be shifted to start at one of the times.
  for (let start = 0; start < sorted.length; start += 1) {
    const from = sorted[start] ?? 0;
    while (end < sorted.length && (sorted[end] ?? 0) < from + windowMs) end += 1;
    max = Math.max(max, end - start);
  }
  return max;
}
