/**
 * The seam between the EFA client (src/efa) and the HTTP machinery (src/http).
 *
 * The client builds URLs and interprets bodies; the transport moves bytes; the scheduler decides
 * when an attempt may start (rate ceiling, requests in flight) and whether a failed attempt is tried
 * again. Keeping these apart lets tests swap any one of them.
 */

/** One GET as the client wants it sent. `operation` names the EFA operation for logs and metrics. */
export interface HttpGet {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly operation: string;
  /** Aborts the request (timeouts, shutdown). */
  readonly signal?: AbortSignal;
}

/** What came back, whatever the status: interpreting a status is the client's job. */
export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly durationMs: number;
}

/** Sends one GET. Throws `HttpTimeoutError` or `HttpConnectionError` (src/http/errors.ts) when no reply came. */
export interface Transport {
  send(request: HttpGet): Promise<HttpReply>;
}

/**
 * An error the scheduler may retry. Any thrown value with `retryable: true` is retried (with backoff,
 * or after `retryAfterMs` when the server said so); anything else fails the call at once.
 */
export interface RetryHint {
  readonly retryable: boolean;
  /** The server's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;
  /** True when the server said we are too fast (HTTP 429): the scheduler lowers its rate. */
  readonly rateLimited?: boolean;
  /**
   * True when the failure says the upstream as a whole may be down, not that this request is bad:
   * no connection, no reply at all, 5xx, 429. The scheduler's outage circuit (outage.ts) weighs it.
   */
  readonly outage?: boolean;
}

/** Everything the scheduler reports, for progress bars, logs, run records and metrics. */
export type SchedulerEvent =
  | { readonly kind: 'attempt'; readonly operation: string; readonly attempt: number; readonly at: number }
  | { readonly kind: 'success'; readonly operation: string; readonly attempt: number; readonly durationMs: number }
  | {
      readonly kind: 'retry';
      readonly operation: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
    }
  | { readonly kind: 'failure'; readonly operation: string; readonly attempts: number; readonly reason: string }
  | { readonly kind: 'rate'; readonly requestsPerSecond: number; readonly reason: 'backoff' | 'recover' }
  | { readonly kind: 'outage'; readonly state: 'down' | 'up' | 'gave-up'; readonly waitedMs: number; readonly reason?: string };

/**
 * Runs attempts of one logical request under the job's limits. `attempt` receives the attempt
 * number (1-based) and a signal that fires at the attempt's timeout.
 */
export interface RequestScheduler {
  run<T>(operation: string, attempt: (signal: AbortSignal, attemptNo: number) => Promise<T>): Promise<T>;
  /** Attempts started so far (every HTTP request that left, retries included). */
  readonly requestsSent: number;
}
