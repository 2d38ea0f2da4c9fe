import { systemClock, type Clock } from './clock.js';

export class InvalidRateError extends RangeError {
  override readonly name = 'InvalidRateError';

  constructor(readonly requestsPerSecond: number) {
    super(`requestsPerSecond must be a finite number > 0, got ${requestsPerSecond}`);
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

const WINDOW_MS = 1000;

/**
 * A rate limiter that is a hard ceiling, not an average: in every half-open window of one second,
 * at most `floor(rate)` grants (at most one for rates below 1).
 *
 * Two rules together, both cheap:
 * - spacing: consecutive grants are at least `1000 / rate` ms apart (a bucket of capacity 1 with
 *   continuous refill), so idle time never builds up a burst and requests go out evenly;
 * - a log of recent grants: a grant waits until the `floor(rate)`-th latest grant is a full second old.
 *   Spacing alone would already do for integer rates in exact arithmetic, but not for fractional rates
 *   (2.5/s spaced 400 ms puts 3 grants in a second), nor with float rounding of `1000 / rate`, nor right
 *   after `setRate` lowered the rate.
 *
 * Waiters are served strictly first come, first served.
 */
export class TokenBucket {
  readonly #clock: Clock;
  readonly #queue: Waiter[] = [];
  /** Grant times younger than one window, oldest first. */
  #recent: number[] = [];
  #lastGrant = Number.NEGATIVE_INFINITY;
  #rate: number;
  #timer: unknown;
  #timerSet = false;

  constructor(requestsPerSecond: number, options: { clock?: Clock } = {}) {
    assertRate(requestsPerSecond);
    this.#rate = requestsPerSecond;
    this.#clock = options.clock ?? systemClock;
  }

  get requestsPerSecond(): number {
    return this.#rate;
  }

  /** Callers waiting for a grant. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Changes the rate at once; waiters are re-timed against the new rate. */
  setRate(requestsPerSecond: number): void {
    assertRate(requestsPerSecond);
    this.#rate = requestsPerSecond;
    this.#pump();
  }

  /** Resolves when this caller may send; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.#queue.indexOf(waiter);
          if (index >= 0) this.#queue.splice(index, 1);
          reject(signal?.reason);
          this.#pump();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#timerSet) {
      this.#clock.clearTimer(this.#timer);
      this.#timerSet = false;
    }
    for (;;) {
      const head = this.#queue[0];
      if (head === undefined) return;
      const now = this.#clock.now();
      const eligibleAt = this.#eligibleAt(now);
      if (eligibleAt > now) {
        this.#timer = this.#clock.setTimer(() => {
          this.#timerSet = false;
          this.#pump();
        }, eligibleAt - now);
        this.#timerSet = true;
        return;
      }
      this.#queue.shift();
      head.signal?.removeEventListener('abort', head.onAbort);
      this.#lastGrant = now;
      this.#recent.push(now);
      head.resolve();
    }
  }

  #eligibleAt(now: number): number {
    // A grant exactly one window ago no longer shares a half-open window with a grant now.
    while (this.#recent.length > 0 && (this.#recent[0] ?? now) <= now - WINDOW_MS) this.#recent.shift();
    let at = this.#lastGrant + WINDOW_MS / this.#rate;
    const perWindow = Math.floor(this.#rate);
    if (perWindow >= 1 && this.#recent.length >= perWindow) {
      const nthLatest = this.#recent[this.#recent.length - perWindow] ?? now;
      at = Math.max(at, nthLatest + WINDOW_MS);
    }
    return at;
  }
}

function assertRate(requestsPerSecond: number): void {
  if (!Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) throw new InvalidRateError(requestsPerSecond);
}
