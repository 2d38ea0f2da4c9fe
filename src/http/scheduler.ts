import pLimit, { type LimitFunction } from 'p-limit';
import { AdaptiveRate, type RateChange } from './adaptive-rate.js';
import { sleep, systemClock, type Clock } from './clock.js';
import {
  AttemptTimeoutError,
  describeError,
  HttpTimeoutError,
  isRetryHint,
  RequestBudgetExceededError,
  RetriesExhaustedError,
  RetryAfterTooLongError,
  retryHintOf,
} from './errors.js';
import { isOutageSign, OutageCircuit, type OutageOptions, type OutageStats, type Probe } from './outage.js';
import { InvalidSchedulerOptionError, requireInteger, requireNonNegative, requirePositive, type RequestSchedulerOptions } from './scheduler-options.js';
import { TokenBucket, type Grant } from './token-bucket.js';
import { attachTicket } from './wire.js';

export { InvalidSchedulerOptionError, type RequestSchedulerOptions };
import type { RequestScheduler, SchedulerEvent } from './types.js';

/** Counters for the run record (`efa.runs.requests`, stats) and for logs. */
export interface SchedulerStats {
  readonly requestsSent: number;
  readonly requestsByOperation: Readonly<Record<string, number>>;
  readonly retries: number;
  /** Calls that failed for good (after retries, or at once when not retryable). */
  readonly failures: number;
  readonly rateLimitedReplies: number;
  /** The rate in force now (below the ceiling after backoff). */
  readonly requestsPerSecond: number;
  /** The upstream's outages during the run (zeros until watchOutages). */
  readonly outage: OutageStats;
}

/** The operation the outage circuit's probes are counted under (requestsByOperation.outageProbe). */
export const OUTAGE_PROBE_OPERATION = 'outageProbe';

export interface MeteredRequestScheduler extends RequestScheduler {
  readonly requestsPerSecond: number;
  stats(): SchedulerStats;
  /**
   * Raises the request budget by `extra` (a run learns how much work a phase holds only when it
   * starts: the stops whose lines are due). No effect without a budget.
   */
  extendBudget(extra: number): void;
  /**
   * From now on an upstream that stops answering every request opens the outage circuit (outage.ts):
   * sending stops, a probe asks with growing pauses, and the calls go on where they were once it
   * answers. Before it (a run's start probe), such failures are retried and fail as usual.
   */
  watchOutages(options: OutageOptions): void;
  /**
   * Called before each attempt takes its token, with the count it would make (requests sent, plus
   * attempts already past this point and waiting for theirs): a returned promise holds the attempt,
   * before its token, until it settles. A run records its count there ahead of sending, so a killed
   * process leaves a count no lower than what the upstream received; it never sits between a token
   * and the request's write.
   */
  countBeforeSending(journal: (requestsSent: number) => Promise<void> | undefined): void;
}

/** An attempt not sent because the upstream was found down while it waited for its slot or token. */
const HELD = Symbol('held by the outage circuit');

type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown; readonly sentAt: number };

export function createRequestScheduler(options: RequestSchedulerOptions): MeteredRequestScheduler {
  return new Scheduler(options);
}

class Scheduler implements MeteredRequestScheduler {
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #bucket: TokenBucket;
  readonly #limit: LimitFunction;
  readonly #rate: AdaptiveRate;
  readonly #retries: number;
  readonly #timeoutMs: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxRetryAfterMs: number;
  #maxRequests: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onEvent: ((event: SchedulerEvent) => void) | undefined;

  #requestsSent = 0;
  readonly #byOperation = new Map<string, number>();
  #retryCount = 0;
  #failures = 0;
  #rateLimitedReplies = 0;
  #calls = 0;
  #circuit: OutageCircuit | undefined;
  /** The last attempt that was answered: the outage circuit's probe sends it again. */
  #lastAnswered: ((signal: AbortSignal, attemptNo: number) => Promise<unknown>) | undefined;
  #journal: ((requestsSent: number) => Promise<void> | undefined) | undefined;
  /** Requests sent plus attempts that passed their checks and wait for a token: the journal's count. */
  #promised = 0;

  constructor(options: RequestSchedulerOptions) {
    requirePositive('requestsPerSecond', options.requestsPerSecond);
    requireInteger('concurrency', options.concurrency, 1);
    this.#retries = options.retries ?? 4;
    requireInteger('retries', this.#retries, 0);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    requirePositive('timeoutMs', this.#timeoutMs);
    this.#baseDelayMs = options.baseDelayMs ?? 500;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
    requireNonNegative('baseDelayMs', this.#baseDelayMs);
    requireNonNegative('maxDelayMs', this.#maxDelayMs);
    requireNonNegative('maxRetryAfterMs', this.#maxRetryAfterMs);
    this.#maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
    if (options.maxRequests !== undefined) requireInteger('maxRequests', options.maxRequests, 0);

    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#signal = options.signal;
    this.#onEvent = options.onEvent;
    this.#bucket = new TokenBucket(options.requestsPerSecond, { clock: this.#clock });
    this.#limit = pLimit(options.concurrency);
    this.#rate = new AdaptiveRate({
      ceiling: options.requestsPerSecond,
      backoffFactor: options.backoffFactor,
      floor: options.minRequestsPerSecond,
      recoverAfterSuccesses: options.recoverAfterSuccesses,
      recoverStep: options.recoverStep,
    });
  }

  get requestsSent(): number {
    return this.#requestsSent;
  }

  get requestsPerSecond(): number {
    return this.#bucket.requestsPerSecond;
  }

  extendBudget(extra: number): void {
    requireInteger('extra', extra, 0);
    if (Number.isFinite(this.#maxRequests)) this.#maxRequests += extra;
  }

  watchOutages(options: OutageOptions): void {
    requirePositive('maxWaitMs', options.maxWaitMs);
    this.#circuit = new OutageCircuit(options, () => this.#probe(), {
      clock: this.#clock,
      // A probe that hangs must not carry the run past its bound by a whole attempt timeout.
      probeTimeoutMs: Math.min(this.#timeoutMs, 10_000),
      signal: this.#signal,
      onChange: (c) => this.#emit({ kind: 'outage', ...c }),
    });
  }

  countBeforeSending(journal: (requestsSent: number) => Promise<void> | undefined): void {
    this.#journal = journal;
  }

  #probe(): Probe | undefined {
    const again = this.#lastAnswered;
    if (again === undefined) return undefined;
    return async (timeoutMs) => {
      const outcome = await this.#limit(() => this.#attemptOnce(OUTAGE_PROBE_OPERATION, 1, again, timeoutMs, true));
      if (!outcome.ok) throw outcome.error;
    };
  }

  stats(): SchedulerStats {
    return {
      requestsSent: this.#requestsSent,
      requestsByOperation: Object.fromEntries(this.#byOperation),
      retries: this.#retryCount,
      failures: this.#failures,
      rateLimitedReplies: this.#rateLimitedReplies,
      requestsPerSecond: this.#bucket.requestsPerSecond,
      outage: this.#circuit?.stats() ?? { outages: 0, probes: 0, waitedS: 0 },
    };
  }

  async run<T>(operation: string, attempt: (signal: AbortSignal, attemptNo: number) => Promise<T>): Promise<T> {
    const call = (this.#calls += 1);
    // `tries` counts against the retries; an attempt that failed while the upstream was down does not.
    for (let attemptNo = 1, tries = 1; ; attemptNo += 1, tries += 1) {
      let outcome: Outcome<T>;
      try {
        await this.#circuit?.ready();
        // The slot is taken before the token, not after: a token granted to a caller that then queues
        // for a slot would be spent later, and several such callers released together would burst
        // past the rate ceiling. Holding a slot while the token comes keeps grant time = send time.
        outcome = await this.#limit(() => this.#attemptOnce(operation, attemptNo, attempt));
      } catch (shutdown) {
        throw this.#fail(operation, attemptNo - 1, shutdown);
      }
      if (!outcome.ok && outcome.error === HELD) {
        // Not sent: the same attempt again once the upstream answers.
        attemptNo -= 1;
        tries -= 1;
        continue;
      }
      if (outcome.ok) {
        this.#lastAnswered = attempt;
        this.#circuit?.answered();
        return outcome.value;
      }

      const { error } = outcome;
      if (this.#signal?.aborted) throw this.#fail(operation, attemptNo, this.#signal.reason);
      const hint = retryHintOf(error);
      if (hint.rateLimited) {
        this.#rateLimitedReplies += 1;
        this.#applyRate(this.#rate.rateLimited(outcome.sentAt, this.#clock.now()));
      }
      if (this.#circuit !== undefined) {
        if (!isOutageSign(error)) this.#circuit.answered();
        else {
          let down: boolean;
          try {
            down = await this.#circuit.isDown(call, describeError(error), tries > this.#retries);
          } catch (stop) {
            throw this.#fail(operation, attemptNo, stop);
          }
          if (down) {
            tries -= 1;
            continue;
          }
        }
      }
      if (!hint.retryable) throw this.#fail(operation, attemptNo, error);
      if (tries > this.#retries) {
        throw this.#fail(operation, attemptNo, new RetriesExhaustedError(operation, attemptNo, error));
      }

      if (hint.retryAfterMs !== undefined && hint.retryAfterMs > this.#maxRetryAfterMs) {
        throw this.#fail(operation, attemptNo, new RetryAfterTooLongError(operation, hint.retryAfterMs, this.#maxRetryAfterMs, error));
      }
      const delayMs = hint.retryAfterMs ?? this.#backoff(tries);
      this.#retryCount += 1;
      this.#emit({ kind: 'retry', operation, attempt: attemptNo, delayMs, reason: describeError(error) });
      try {
        await sleep(this.#clock, delayMs, this.#signal);
      } catch (shutdown) {
        throw this.#fail(operation, attemptNo, shutdown);
      }
    }
  }

  /** Full jitter: uniform over [0, cap), so clients that failed together do not retry together. */
  #backoff(failedAttempt: number): number {
    const cap = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (failedAttempt - 1));
    return this.#random() * cap;
  }

  async #attemptOnce<T>(
    operation: string,
    attemptNo: number,
    attempt: (signal: AbortSignal, attemptNo: number) => Promise<T>,
    timeoutMs = this.#timeoutMs,
    probe = false,
  ): Promise<Outcome<T>> {
    const runSignal = this.#signal;
    // Everything that may wait happens before the token is taken: the budget, the outage circuit and
    // the count's journal. From the grant to the request's write there is no await (the attempt
    // runs in the grant's own turn of the event loop): an await in between let every request granted
    // meanwhile leave together, past the ceiling. A write that still waits for its connection is
    // counted by the bucket until it happens (wire.ts).
    if (this.#requestsSent >= this.#maxRequests) return this.#overBudget(operation);
    if (!probe && this.#circuit?.holding === true) return { ok: false, error: HELD, sentAt: this.#clock.now() };
    // This attempt's number among all that may still send: recorded ahead, before its token, so a
    // killed process leaves a count no lower than what the upstream received.
    this.#promised += 1;
    let grant: Grant | undefined;
    try {
      const journalled = this.#journal?.(this.#promised);
      if (journalled !== undefined) await journalled;
      grant = await this.#bucket.acquire(runSignal);
    } finally {
      if (grant === undefined) this.#promised -= 1;
    }
    // Checked again, without waiting: calls that queued while the budget was still open must not all
    // slip through once it is spent, nor attempts queued before the upstream was found down.
    if (this.#requestsSent >= this.#maxRequests || (!probe && this.#circuit?.holding === true)) {
      this.#promised -= 1;
      return this.#requestsSent >= this.#maxRequests ? this.#overBudget(operation) : { ok: false, error: HELD, sentAt: this.#clock.now() };
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = this.#clock.setTimer(() => {
      timedOut = true;
      controller.abort(new AttemptTimeoutError(timeoutMs));
    }, timeoutMs);
    // Not AbortSignal.any: that ties every attempt signal to the long-lived run signal, which older
    // Node releases did not free promptly. A listener removed in `finally` cannot leak.
    const onRunAbort = (): void => controller.abort(runSignal?.reason);
    runSignal?.addEventListener('abort', onRunAbort, { once: true });
    if (runSignal?.aborted) controller.abort(runSignal.reason);

    // The transport tells the grant when a request sent with this signal is written (wire.ts).
    attachTicket(controller.signal, grant);
    const sentAt = this.#clock.now();
    this.#requestsSent += 1;
    this.#byOperation.set(operation, (this.#byOperation.get(operation) ?? 0) + 1);
    this.#emit({ kind: 'attempt', operation, attempt: attemptNo, at: sentAt });
    try {
      const value = await attempt(controller.signal, attemptNo);
      const now = this.#clock.now();
      this.#emit({ kind: 'success', operation, attempt: attemptNo, durationMs: now - sentAt });
      this.#applyRate(this.#rate.succeeded(sentAt, now));
      return { ok: true, value };
    } catch (error) {
      // An attempt function that just rethrows the abort reason (or a generic AbortError) timed out
      // all the same; give it the one error type callers and the retry logic know.
      const classified = timedOut && !isRetryHint(error) ? new HttpTimeoutError(operation, timeoutMs) : error;
      return { ok: false, error: classified, sentAt };
    } finally {
      grant.settled();
      this.#clock.clearTimer(timer);
      runSignal?.removeEventListener('abort', onRunAbort);
    }
  }

  #overBudget(operation: string): Outcome<never> {
    return { ok: false, error: new RequestBudgetExceededError(operation, this.#maxRequests, this.#requestsSent), sentAt: this.#clock.now() };
  }

  #applyRate(change: RateChange | undefined): void {
    if (change === undefined) return;
    this.#bucket.setRate(change.requestsPerSecond);
    this.#emit({ kind: 'rate', requestsPerSecond: change.requestsPerSecond, reason: change.reason });
  }

  #fail(operation: string, attempts: number, error: unknown): unknown {
    this.#failures += 1;
    this.#emit({ kind: 'failure', operation, attempts, reason: describeError(error) });
    return error;
  }

  #emit(event: SchedulerEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // A broken progress bar or logger must not fail a request that the API answered.
    }
  }
}
