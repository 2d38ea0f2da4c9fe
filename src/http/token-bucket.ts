import { systemClock, type Clock } from './clock.js';
import type { WireTicket } from './wire.js';

export class InvalidRateError extends RangeError {
  override readonly name = 'InvalidRateError';

  constructor(readonly requestsPerSecond: number) {
    super(`requestsPerSecond must be a finite number > 0, got ${requestsPerSecond}`);
  }
}

/**
 * One grant. Counted at the moment it was granted, unless its transport reports the write
 * (`expectWire`): then it counts as pending (in every window from now on) until `wrote`, and from
 * then at that moment. `settled` ends a pending grant whose write was never reported (the request
 * failed before it, or a transport that does not tell), counting it then, which is never too early.
 */
export interface Grant extends WireTicket {
  settled(): void;
}

interface Waiter {
  readonly resolve: (grant: Grant) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

const WINDOW_MS = 1000;
/**
 * A written request is logged this much after its write: between the write (what the bucket sees)
 * and the upstream's clock a request may be held a few milliseconds (the peer's event loop, the
 * scheduler of a loaded machine), and logged at the write itself the next window's first request
 * could be counted by the upstream in this one's. At most 1 % of an integer rate's throughput.
 */
export const WIRE_GUARD_MS = 10;

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
 * Both count a request where the upstream sees it: a grant whose transport reports the write (wire.ts)
 * is pending until then, and pending grants fill the window as if sent now; once written it counts at
 * that moment. A request that waits for a connection after its grant, while the event loop stalls,
 * cannot then leave beside the next grant, past the ceiling.
 *
 * Waiters are served strictly first come, first served.
 */
export class TokenBucket {
  readonly #clock: Clock;
  readonly #queue: Waiter[] = [];
  /** Grant times younger than one window, oldest first. */
  #recent: number[] = [];
  /** Grants not yet written: they count in every window until they are. */
  #pending = 0;
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
  acquire(signal?: AbortSignal): Promise<Grant> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Grant>((resolve, reject) => {
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
      // Infinity: only a pending grant's write can make room; its report pumps again.
      if (eligibleAt === Number.POSITIVE_INFINITY) return;
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
      head.resolve(this.#grant(now));
    }
  }

  #grant(grantedAt: number): Grant {
    let state: 'counted' | 'pending' | 'written' = 'counted';
    const written = (): void => {
      if (state !== 'pending') return;
      state = 'written';
      this.#pending -= 1;
      // The spacing stays from the grant: a connection's set-up delays every request alike, and
      // spacing from the write would lower the rate by it. The log below keeps the ceiling.
      const at = this.#clock.now() + WIRE_GUARD_MS;
      // Kept in order: a request written late may follow one granted after it.
      let i = this.#recent.length;
      while (i > 0 && (this.#recent[i - 1] ?? 0) > at) i -= 1;
      this.#recent.splice(i, 0, at);
      this.#pump();
    };
    return {
      expectWire: () => {
        if (state !== 'counted') return;
        const index = this.#recent.lastIndexOf(grantedAt);
        if (index < 0) return;
        this.#recent.splice(index, 1);
        state = 'pending';
        this.#pending += 1;
      },
      wrote: written,
      settled: written,
    };
  }

  #eligibleAt(now: number): number {
    // A grant exactly one window ago no longer shares a half-open window with a grant now.
    while (this.#recent.length > 0 && (this.#recent[0] ?? now) <= now - WINDOW_MS) this.#recent.shift();
    let at = this.#lastGrant + WINDOW_MS / this.#rate;
    // Below 1/s spacing alone makes one a second, but a pending grant's write may come late.
    const perWindow = Math.max(1, Math.floor(this.#rate));
    const occupied = this.#recent.length + this.#pending;
    if (occupied >= perWindow) {
      // So many of the recent grants must leave the window first (pending ones never do).
      const mustLeave = occupied - perWindow + 1;
      const leaving = this.#recent[mustLeave - 1];
      if (leaving === undefined) return Number.POSITIVE_INFINITY;
      at = Math.max(at, leaving + WINDOW_MS);
    }
    return at;
  }
}

function assertRate(requestsPerSecond: number): void {
  if (!Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) throw new InvalidRateError(requestsPerSecond);
}
