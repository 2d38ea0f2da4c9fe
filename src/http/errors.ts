import type { RetryHint } from './types.js';
import { redactUrl } from './redact.js';

/**
 * The attempt ran past its time limit. Retryable: a slow answer tonight says little about the next
 * try. `url` is redacted (no credentials, no secret-looking query values) because errors end up in
 * logs and in `efa.runs.error`.
 */
export class HttpTimeoutError extends Error implements RetryHint {
  override readonly name = 'HttpTimeoutError';
  readonly retryable = true;
  readonly url: string | undefined;

  constructor(
    readonly operation: string,
    readonly timeoutMs: number | undefined,
    url?: URL | string,
  ) {
    const redacted = url === undefined ? undefined : redactUrl(url);
    const limit = timeoutMs === undefined ? '' : ` after ${timeoutMs} ms`;
    super(`${operation}: no reply${limit}${redacted === undefined ? '' : ` from ${redacted}`}`);
    this.url = redacted;
  }
}

/** No reply because the connection failed or broke (refused, reset, cut mid-body). Retryable. */
export class HttpConnectionError extends Error implements RetryHint {
  override readonly name = 'HttpConnectionError';
  readonly retryable = true;
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
export class AttemptTimeout extends Error {
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
