import type { Clock } from './clock.js';
import type { SchedulerEvent } from './types.js';

/** The scheduler's options, checked: a bad one is a RangeError naming it. */
export class InvalidSchedulerOptionError extends RangeError {
  override readonly name = 'InvalidSchedulerOptionError';

  constructor(
    readonly option: string,
    value: unknown,
    expected: string,
  ) {
    super(`scheduler option ${option} must be ${expected}, got ${String(value)}`);
  }
}

export function requirePositive(option: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new InvalidSchedulerOptionError(option, value, 'a finite number > 0');
}

export function requireNonNegative(option: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new InvalidSchedulerOptionError(option, value, 'a finite number >= 0');
}

export function requireInteger(option: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new InvalidSchedulerOptionError(option, value, `an integer >= ${min}`);
}

export interface RequestSchedulerOptions {
  /** Hard ceiling over all operations together. */
  readonly requestsPerSecond: number;
  /** Requests in flight at most. */
  readonly concurrency: number;
  /** Tries after the first one. Default 4 (five attempts in all). */
  readonly retries?: number;
  /** Per attempt. Default 30 000. */
  readonly timeoutMs?: number;
  /** Backoff base: attempt n waits up to `baseDelayMs * 2^(n-1)`. Default 500. */
  readonly baseDelayMs?: number;
  /** Backoff cap. Default 30 000. */
  readonly maxDelayMs?: number;
  /**
   * Longest server Retry-After the scheduler waits. A longer one fails the call at once with
   * `RetryAfterTooLongError` (a warning), so one odd header cannot park a unit of a nightly run.
   * Default 300 000.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Requests (attempts, retries included) the scheduler sends at most over its life, i.e. one run.
   * Past it every call fails with `RequestBudgetExceededError` without sending. Default: no budget.
   */
  readonly maxRequests?: number;
  /** Rate multiplier on HTTP 429. Default 0.5. */
  readonly backoffFactor?: number;
  /** Lowest rate after backoff. Default 0.2. */
  readonly minRequestsPerSecond?: number;
  /** Successes before the rate is raised a step. Default 10. */
  readonly recoverAfterSuccesses?: number;
  /** Recovery step in requests per second. Default a tenth of `requestsPerSecond`. */
  readonly recoverStep?: number;
  /** Aborts every waiting and running attempt (shutdown). */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: SchedulerEvent) => void;
  readonly clock?: Clock;
  /** Uniform in [0, 1); injectable so tests can pin the jitter. */
  readonly random?: () => number;
}
