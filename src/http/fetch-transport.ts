import { HttpConnectionError, HttpRequestError, HttpTimeoutError } from './errors.js';
import { scrubHeaderValues } from './redact.js';
import type { HttpGet, HttpReply, Transport } from './types.js';

export interface FetchTransportOptions {
  /** Sent unless the request sets its own `user-agent`. Default `efa-sync`. */
  readonly userAgent?: string;
}

/**
 * Codes (on the error or its causes) that mean the network failed us, not the request: worth
 * another try. Undici reports a peer that hangs up mid-body as UND_ERR_SOCKET.
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Messages undici uses for a connection that broke, when no code is at hand. Not "fetch failed": undici
 * wraps everything in it, an unknown URL scheme included, and that must not be retried.
 */
const CONNECTION_MESSAGES = /^(terminated|other side closed|socket hang up)$/i;

/** A `Transport` on the runtime's global `fetch` (undici in Node 20). */
export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  const userAgent = options.userAgent ?? 'efa-sync';
  return {
    async send(request: HttpGet): Promise<HttpReply> {
      const headers = withUserAgent(request.headers, userAgent);
      const started = performance.now();
      try {
        const response = await fetch(request.url, {
          method: 'GET',
          headers,
          signal: request.signal,
          redirect: 'follow',
        });
        // Inside the try: the body arrives after the headers and can be cut or timed out on its own.
        const body = await response.text();
        const replyHeaders: Record<string, string> = {};
        // Names come lower-cased. Repeats are joined already, except set-cookie, which forEach yields
        // once per cookie; join those too rather than keep only the last.
        response.headers.forEach((value, name) => {
          const earlier = replyHeaders[name];
          replyHeaders[name] = earlier === undefined ? value : `${earlier}, ${value}`;
        });
        return { status: response.status, headers: replyHeaders, body, durationMs: performance.now() - started };
      } catch (error) {
        throw classify(error, request, headers);
      }
    },
  };
}

function withUserAgent(headers: Readonly<Record<string, string>>, userAgent: string): Record<string, string> {
  const hasOwn = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
  return hasOwn ? { ...headers } : { ...headers, 'user-agent': userAgent };
}

function classify(error: unknown, request: HttpGet, headers: Readonly<Record<string, string>>): unknown {
  const signal = request.signal;
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (isTimeoutReason(reason)) return new HttpTimeoutError(request.operation, timeoutMsOf(reason), request.url);
    // Aborted for another reason (shutdown): hand the caller its own reason back, as fetch does.
    return reason;
  }
  const code = connectionCode(error);
  if (code !== undefined || isConnectionMessage(error)) {
    return new HttpConnectionError(request.operation, { cause: error, url: request.url, code });
  }
  // Undici quotes offending header values in its messages; those may be API keys.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new HttpRequestError(request.operation, scrubHeaderValues(detail, headers));
}

/** `AbortSignal.timeout()` aborts with a DOMException named TimeoutError; the scheduler's reason mimics it. */
function isTimeoutReason(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

function timeoutMsOf(reason: unknown): number | undefined {
  const ms = (reason as { timeoutMs?: unknown }).timeoutMs;
  return typeof ms === 'number' ? ms : undefined;
}

/** The first connection-failure code on the error or along its cause chain. */
function connectionCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isConnectionMessage(error: unknown): boolean {
  return error instanceof TypeError && CONNECTION_MESSAGES.test(error.message);
}
