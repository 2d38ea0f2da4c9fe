import { sleep, type Clock } from './clock.js';
import { UpstreamOutageError } from './errors.js';
import type { RetryHint } from './types.js';

/**
 * The run's one circuit against an upstream that stopped answering (an EFA server reloading its data
 * at night, a gateway restarting). Failures that say nothing about one request but everything about
 * the host (no connection, no reply, 5xx, 429: `RetryHint.outage`) are evidence; a probe decides.
 *
 * - closed: requests go out as usual; a success clears the evidence.
 * - suspect: failures of two different calls came in a row, or a call spent its retries on such
 *   failures. Nothing is sent; one probe (the last request that succeeded, sent again) asks at once.
 *   It answers: closed again, and the failures count against their calls' retries as today (a unit
 *   that fails on its own while the upstream answers others still fails, exit 3). It does not: down.
 * - down: nothing is sent but one probe at a time, after growing pauses (1 s, 2 s, … up to 30 s: a
 *   few requests a minute, not hundreds of retries). The failures that led here are forgiven: every
 *   waiting call is sent again, where it was, once a probe is answered. Past `maxWaitMs` every
 *   waiting and later call fails with UpstreamOutageError: the run stops, resumable (exit 75).
 *
 * Modelled on dlt's split of terminal and transient errors: what a failure says about the host is
 * the error's own word (`outage`), never guessed here from its text.
 */
export interface OutageOptions {
  /** How long the upstream may stay down before the run gives up (limits.outageWaitS). */
  readonly maxWaitMs: number;
  /** The first pause between probes; it doubles. Default 1 000. */
  readonly firstPauseMs?: number;
  /** The longest pause between probes. Default 30 000. */
  readonly maxPauseMs?: number;
}

/** Figures of the outages of a run, for its record, report and metrics. */
export interface OutageStats {
  /** Times the upstream was found down (each ended by an answer, or the last by giving up). */
  readonly outages: number;
  /** Probe requests sent (each also in requestsByOperation.outageProbe). */
  readonly probes: number;
  /** Seconds spent waiting for the upstream, in all. */
  readonly waitedS: number;
}

/** Whether a failure is what an upstream that is down looks like. */
export function isOutageSign(error: unknown): boolean {
  return (error as Partial<RetryHint> | null | undefined)?.outage === true;
}

/** Sends the probe: resolves when the upstream answered (anything that is no outage sign), else rejects. */
export type Probe = (timeoutMs: number) => Promise<void>;

type State = 'closed' | 'suspect' | 'down' | 'gave-up';

/** What the circuit says as it moves: the upstream found down, answering again, or given up on. */
export interface OutageChange {
  readonly state: 'down' | 'up' | 'gave-up';
  readonly waitedMs: number;
  /** The last outage sign seen (redacted by the error that carried it). */
  readonly reason?: string;
}

export class OutageCircuit {
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  readonly #firstPauseMs: number;
  readonly #maxPauseMs: number;
  readonly #probeTimeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onChange: (change: OutageChange) => void;
  #state: State = 'closed';
  /** Calls that failed with an outage sign since the last answer. */
  readonly #failing = new Set<number>();
  #verdict: Promise<boolean> | undefined;
  #released: Promise<void> = Promise.resolve();
  #release: () => void = () => undefined;
  #gaveUp: UpstreamOutageError | undefined;
  #downSince = 0;
  #lastSign = '';
  #outages = 0;
  #probes = 0;
  #waitedMs = 0;

  constructor(
    options: OutageOptions,
    readonly probe: () => Probe | undefined,
    o: {
      readonly clock: Clock;
      readonly probeTimeoutMs: number;
      readonly signal?: AbortSignal | undefined;
      readonly onChange: (change: OutageChange) => void;
    },
  ) {
    this.#clock = o.clock;
    this.#maxWaitMs = options.maxWaitMs;
    this.#firstPauseMs = options.firstPauseMs ?? 1_000;
    this.#maxPauseMs = options.maxPauseMs ?? 30_000;
    this.#probeTimeoutMs = o.probeTimeoutMs;
    this.#signal = o.signal;
    this.#onChange = o.onChange;
  }

  stats(): OutageStats {
    const waiting = this.#state === 'down' ? this.#clock.now() - this.#downSince : 0;
    return { outages: this.#outages, probes: this.#probes, waitedS: Math.round((this.#waitedMs + waiting) / 100) / 10 };
  }

  /** True while nothing but probes may be sent (suspect, down, given up). */
  get holding(): boolean {
    return this.#state !== 'closed';
  }

  /** Before each attempt: returns at once while closed, else when the upstream answers again. */
  async ready(): Promise<void> {
    if (this.#gaveUp) throw this.#gaveUp;
    if (this.#state === 'closed') return;
    await abortable(this.#released, this.#signal);
    if (this.#gaveUp) throw this.#gaveUp;
  }

  /** An answer: the evidence is cleared. */
  answered(): void {
    if (this.#state === 'closed') this.#failing.clear();
  }

  /**
   * A call's attempt failed with an outage sign. Resolves true when the upstream is down (the call
   * waits in `ready` and tries again, the failure not counted), false when it answers others (the
   * failure counts as today). `spent`: the call has no retry left, so the question is asked now.
   */
  async isDown(call: number, reason: string, spent: boolean): Promise<boolean> {
    if (this.#gaveUp) throw this.#gaveUp;
    if (this.#state === 'down') return true;
    this.#lastSign = reason;
    this.#failing.add(call);
    if (this.#state === 'closed' && (spent || this.#failing.size >= 2)) this.#suspect();
    return this.#state === 'closed' ? false : (this.#verdict ?? Promise.resolve(false));
  }

  #suspect(): void {
    const probe = this.probe();
    // Nothing has been answered yet: nothing to ask again, so no verdict (the run's start probe decides then).
    if (probe === undefined) return;
    this.#state = 'suspect';
    this.#released = new Promise<void>((resolve) => (this.#release = resolve));
    this.#verdict = this.#ask(probe).then((answered) => {
      if (answered) {
        this.#close();
        return false;
      }
      this.#state = 'down';
      this.#downSince = this.#clock.now();
      this.#outages += 1;
      this.#onChange({ state: 'down', waitedMs: 0, reason: this.#lastSign });
      void this.#probeUntilAnswered(probe);
      return true;
    });
  }

  async #probeUntilAnswered(probe: Probe): Promise<void> {
    const deadline = this.#downSince + this.#maxWaitMs;
    for (let pause = this.#firstPauseMs; ; pause = Math.min(this.#maxPauseMs, pause * 2)) {
      const left = deadline - this.#clock.now();
      if (left <= 0) return this.#giveUp();
      try {
        await sleep(this.#clock, Math.min(pause, left), this.#signal);
      } catch {
        return this.#giveUp();
      }
      if (await this.#ask(probe)) {
        this.#waitedMs += this.#clock.now() - this.#downSince;
        this.#onChange({ state: 'up', waitedMs: this.#clock.now() - this.#downSince });
        return this.#close();
      }
    }
  }

  /** One probe; true when the upstream answered. */
  async #ask(probe: Probe): Promise<boolean> {
    this.#probes += 1;
    try {
      await probe(this.#probeTimeoutMs);
      return true;
    } catch (error) {
      if (this.#signal?.aborted) return false;
      if (!isOutageSign(error)) return true;
      this.#lastSign = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  #close(): void {
    this.#state = 'closed';
    this.#failing.clear();
    this.#verdict = undefined;
    this.#release();
  }

  #giveUp(): void {
    const waitedMs = this.#clock.now() - this.#downSince;
    this.#waitedMs += waitedMs;
    this.#state = 'gave-up';
    this.#gaveUp = new UpstreamOutageError(Math.round(waitedMs / 1000), this.#probes, this.#lastSign);
    this.#onChange({ state: 'gave-up', waitedMs, reason: this.#lastSign });
    this.#release();
  }
}

/** `promise`, or the signal's reason once it aborts (a stop signal must not wait out an outage). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}
