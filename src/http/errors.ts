import { ExitCode, type Terminal } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import type { RetryHint } from './types.js';

/**
 * The attempt ran past its time limit. Retryable: a slow answer tonight says little about the next
 * try. `url` is redacted (no credentials, no secret-looking query values) because errors end up in
 * logs and in `efa.runs.error`.
 */
export class HttpTimeoutError extends Error implements RetryHint {
  override readonly name = 'HttpTimeoutError';
  readonly retryable = true;
  /** No status line at all: what a host that is down looks like (a dripping body is not). */
  readonly outage: boolean;
  readonly url: string | undefined;
  /**
   * Body bytes (decompressed) that had arrived when time ran out; undefined when not even the
   * status line came. A server dripping an endless body is not a server that did not answer.
   */
  readonly receivedBytes: number | undefined;

  constructor(
    readonly operation: string,
    readonly timeoutMs: number | undefined,
    url?: URL | string,
    receivedBytes?: number,
  ) {
    const redacted = url === undefined ? undefined : redactUrl(url);
    const limit = timeoutMs === undefined ? '' : ` after ${timeoutMs} ms`;
    const what = receivedBytes === undefined ? 'no reply' : `reply incomplete (${receivedBytes} bytes received)`;
    super(`${operation}: ${what}${limit}${redacted === undefined ? '' : ` from ${redacted}`}`);
    this.url = redacted;
    this.receivedBytes = receivedBytes;
    this.outage = receivedBytes === undefined;
  }
}

/**
 * The reply body (counted after decompression) grew past the transport's limit, so reading stopped
 * and the connection was dropped. Not retryable: the next try would fill memory the same way.
 */
export class ResponseTooLargeError extends Error implements RetryHint {
  override readonly name = 'ResponseTooLargeError';
  readonly retryable = false;
  readonly url: string;

  constructor(
    readonly operation: string,
    readonly maxResponseBytes: number,
    /** Bytes read when reading stopped, or the declared Content-Length when that alone was too much. */
    readonly receivedBytes: number,
    url: URL | string,
  ) {
    const redacted = redactUrl(url);
    super(`${operation}: reply larger than ${maxResponseBytes} bytes (stopped at ${receivedBytes}) from ${redacted}`);
    this.url = redacted;
  }
}

/**
 * The server redirected somewhere the transport will not follow: to another origin (scheme, host
 * or port), where the request's headers (API keys) must not go; or round in circles. A base URL
 * that redirects is a configuration matter (exit 2): point `baseUrl` at the final address.
 */
export class RedirectRefusedError extends Error implements RetryHint, Terminal {
  override readonly name = 'RedirectRefusedError';
  readonly retryable = false;
  readonly exitCode = ExitCode.usage;
  readonly terminal = true;
  readonly from: string;
  readonly to: string | undefined;

  constructor(
    readonly operation: string,
    readonly reason: 'cross-origin' | 'too-many' | 'no-location',
    readonly status: number,
    from: URL,
    to?: URL,
  ) {
    const source = redactUrl(from);
    const target = to === undefined ? undefined : redactUrl(to);
    const why =
      reason === 'cross-origin'
        ? `redirects to another origin (${target ?? '?'}); headers are not sent there: set baseUrl to that address if it is trusted`
        : reason === 'too-many'
          ? 'redirected too many times'
          : 'redirects without a Location header';
    super(`${operation}: HTTP ${status} from ${source} ${why}`);
    this.from = source;
    this.to = target;
  }
}

/**
 * The server asked for a wait (Retry-After) longer than the scheduler's ceiling. Waiting would park
 * a unit of the run for that long, so the call fails instead; `level` says to report it as a warning.
 */
export class RetryAfterTooLongError extends Error implements RetryHint {
  override readonly name = 'RetryAfterTooLongError';
  readonly retryable = false;
  readonly level = 'warn';

  constructor(
    readonly operation: string,
    readonly retryAfterMs: number,
    readonly maxRetryAfterMs: number,
    cause: unknown,
  ) {
    super(
      `${operation}: server asked to retry after ${Math.round(retryAfterMs / 1000)} s, more than the ceiling of ` +
        `${Math.round(maxRetryAfterMs / 1000)} s; not waiting`,
      { cause },
    );
  }
}

/**
 * The run's request budget is spent: no further request is sent. Carries the numbers so the run can
 * end partial with a message saying how many requests went out and what the budget was.
 */
export class RequestBudgetExceededError extends Error implements RetryHint {
  override readonly name = 'RequestBudgetExceededError';
  readonly retryable = false;

  constructor(
    readonly operation: string,
    readonly maxRequests: number,
    readonly requestsSent: number,
  ) {
    super(`${operation}: request budget of ${maxRequests} spent (${requestsSent} requests sent); not sending more`);
  }
}

/** No reply because the connection failed or broke (refused, reset, cut mid-body). Retryable. */
export class HttpConnectionError extends Error implements RetryHint {
  override readonly name = 'HttpConnectionError';
  readonly retryable = true;
  readonly outage = true;
  readonly url: string | undefined;
  /** The low-level code when the runtime gave one (ECONNREFUSED, UND_ERR_SOCKET, ...). */
  readonly code: string | undefined;

  constructor(
    readonly operation: string,
    options: { cause: unknown; url?: URL | string; code?: string },
  ) {
    const redacted = options.url === undefined ? undefined : redactUrl(options.url);
    const code = options.code === undefined ? '' : ` (${options.code})`;
    super(`${operation}: connection failed${code}${redacted === undefined ? '' : ` for ${redacted}`}`, {
      cause: options.cause,
    });
    this.url = redacted;
    this.code = options.code;
  }
}

/**
 * The request could not be sent at all for a reason that retrying will not fix (malformed header,
 * unsupported URL). The runtime's own message is kept only after header values were scrubbed from it.
 */
export class HttpRequestError extends Error implements RetryHint {
  override readonly name = 'HttpRequestError';
  readonly retryable = false;

  constructor(
    readonly operation: string,
    detail: string,
  ) {
    super(`${operation}: request could not be sent: ${detail}`);
  }
}

/** The scheduler gave up on a retryable error. Not retryable itself, or callers could loop forever. */
export class RetriesExhaustedError extends Error implements RetryHint {
  override readonly name = 'RetriesExhaustedError';
  readonly retryable = false;

  constructor(
    readonly operation: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`${operation}: gave up after ${attempts} attempts: ${describeError(cause)}`, { cause });
  }
}

/**
 * Abort reason the scheduler uses when an attempt runs out of time. Named `TimeoutError` like the
 * DOMException of `AbortSignal.timeout()`, so a transport recognises either, and it carries the limit.
 */
export class AttemptTimeoutError extends Error {
  override readonly name = 'TimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`attempt timed out after ${timeoutMs} ms`);
  }
}

/** True for any value shaped like a `RetryHint` (thrown errors from any layer may carry one). */
export function isRetryHint(e: unknown): e is RetryHint {
  return typeof e === 'object' && e !== null && typeof (e as { retryable?: unknown }).retryable === 'boolean';
}

/**
 * The retry hint of a thrown value, normalised: anything not shaped like a hint is not retryable, and a
 * `retryAfterMs` that is not a finite non-negative number is dropped rather than trusted.
 */
export function retryHintOf(e: unknown): RetryHint {
  if (!isRetryHint(e)) return { retryable: false };
  const after = e.retryAfterMs;
  const hint: { retryable: boolean; retryAfterMs?: number; rateLimited?: boolean } = { retryable: e.retryable };
  if (typeof after === 'number' && Number.isFinite(after) && after >= 0) hint.retryAfterMs = after;
  if (e.rateLimited === true) hint.rateLimited = true;
  return hint;
}

/** Short text for logs and events; never reaches into headers. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message === '' ? e.name : `${e.name}: ${e.message}`;
  return String(e);
}

/**
 * The upstream stopped answering every request mid-run and did not answer again within the job's
 * bound (limits.outageWaitS). Terminal: the run stops at once, recorded `stopped` and resumable, and
 * the command ends with exit 75 (try again later), which the shipped systemd unit and CronJob retry.
 */
export class UpstreamOutageError extends Error implements Terminal {
  override readonly name = 'UpstreamOutageError';
  readonly retryable = false;
  readonly terminal = true;
  readonly exitCode = ExitCode.temporaryFailure;

  constructor(
    readonly waitedS: number,
    readonly probes: number,
    /** The last outage sign seen (an error's message, redacted where it was made). */
    readonly lastSign: string,
  ) {
    super(
      `the upstream stopped answering and did not answer again within ${waitedS} s (limits.outageWaitS; ${probes} probe request${probes === 1 ? '' : 's'}; last: ${lastSign})`,
    );
  }
}
