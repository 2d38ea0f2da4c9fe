export interface AdaptiveRateOptions {
  /** The configured rate: the controller never goes above it. */
  readonly ceiling: number;
  /** Multiplier applied on "too many requests". Default 0.5. */
  readonly backoffFactor?: number;
  /** Lowest rate backoff may reach. Default 0.2/s (or the ceiling, if that is lower). */
  readonly floor?: number;
  /** Successes at the current rate before it is raised one step. Default 10. */
  readonly recoverAfterSuccesses?: number;
  /** Additive step for recovery. Default a tenth of the ceiling. */
  readonly recoverStep?: number;
}

export type RateChange = { readonly requestsPerSecond: number; readonly reason: 'backoff' | 'recover' };

/**
 * AIMD for the request rate: halve on HTTP 429, creep back up after a run of successes. Additive
 * recovery because a server that just pushed back deserves a cautious approach to the old rate.
 *
 * Only replies to requests *sent at the current rate* count. Otherwise the several requests in flight
 * when a server starts refusing would each halve the rate again for one and the same overload, and
 * successes of requests sent before a backoff would argue for undoing it.
 */
export class AdaptiveRate {
  readonly #ceiling: number;
  readonly #factor: number;
  readonly #floor: number;
  readonly #recoverAfter: number;
  readonly #step: number;
  #current: number;
  #changedAt = Number.NEGATIVE_INFINITY;
  #successes = 0;

  constructor(options: AdaptiveRateOptions) {
    this.#ceiling = options.ceiling;
    this.#current = options.ceiling;
    this.#factor = options.backoffFactor ?? 0.5;
    this.#floor = Math.min(options.floor ?? 0.2, options.ceiling);
    this.#recoverAfter = options.recoverAfterSuccesses ?? 10;
    this.#step = options.recoverStep ?? options.ceiling / 10;
  }

  get requestsPerSecond(): number {
    return this.#current;
  }

  /** A request sent at `sentAt` was refused as too fast (at time `now`). */
  rateLimited(sentAt: number, now: number): RateChange | undefined {
    if (sentAt < this.#changedAt) return undefined;
    this.#successes = 0;
    const next = Math.max(this.#floor, this.#current * this.#factor);
    if (next === this.#current) return undefined;
    return this.#set(next, now, 'backoff');
  }

  /** A request sent at `sentAt` succeeded (at time `now`). */
  succeeded(sentAt: number, now: number): RateChange | undefined {
    if (sentAt < this.#changedAt || this.#current >= this.#ceiling) return undefined;
    this.#successes += 1;
    if (this.#successes < this.#recoverAfter) return undefined;
    this.#successes = 0;
    return this.#set(Math.min(this.#ceiling, this.#current + this.#step), now, 'recover');
  }

  #set(next: number, now: number, reason: RateChange['reason']): RateChange {
    this.#current = next;
    this.#changedAt = now;
    return { requestsPerSecond: next, reason };
  }
}
