import { collectSecrets, redactReplyBody, redactText } from '../util/redact.js';
import { decodeBody } from './charset.js';
import {
  AttemptTimeoutError,
  HttpConnectionError,
  HttpRequestError,
  HttpTimeoutError,
  RedirectRefusedError,
  ResponseTooLargeError,
} from './errors.js';
import type { HttpGet, HttpReply, Transport } from './types.js';
import { expectWireReport } from './wire.js';

export interface FetchTransportOptions {
  /** Sent unless the request sets its own `user-agent`. Default `efa-sync`. */
  readonly userAgent?: string;
  /**
   * Largest reply body accepted, counted after decompression (a small gzip can expand a
   * thousandfold). Reading stops there and the call fails with `ResponseTooLargeError`. Default 64 MiB.
   */
  readonly maxResponseBytes?: number;
  /**
   * Time for the whole exchange, redirects and the last body byte included, not only between
   * packets: a server dripping an endless body is cut off here. Default 300 000 (5 min); the
   * scheduler's per-attempt `timeoutMs` is usually the tighter bound, this one holds without it.
   */
  readonly deadlineMs?: number;
  /** Same-origin redirects followed at most. Default 5. */
  readonly maxRedirects?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_RESPONSE_DEADLINE_MS = 300_000;
const DEFAULT_MAX_REDIRECTS = 5;

export class InvalidTransportOptionError extends RangeError {
  override readonly name = 'InvalidTransportOptionError';

  constructor(
    readonly option: string,
    value: unknown,
  ) {
    super(`transport option ${option} must be a positive integer, got ${String(value)}`);
  }
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
  const maxResponseBytes = positiveInteger('maxResponseBytes', options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  const deadlineMs = positiveInteger('deadlineMs', options.deadlineMs ?? DEFAULT_RESPONSE_DEADLINE_MS);
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new InvalidTransportOptionError('maxRedirects', maxRedirects);

  return {
    async send(request: HttpGet): Promise<HttpReply> {
      const { url, headers } = withCredentials(request.url, withUserAgent(request.headers, userAgent));
      // Values a server may echo back (an API key in a "your request was …" message): cut from the
      // body here, once, so no excerpt, server message or stored raw record can carry them.
      const secrets = collectSecrets({ urls: [request.url], headers });
      // The rate limiter counts this request from the moment undici writes it, not from its grant.
      const sendEnded = expectWireReport(request.signal, url);
      const started = performance.now();
      const exchange = new Exchange(request, deadlineMs);
      try {
        let response = await fetch(url, { method: 'GET', headers, signal: exchange.signal, redirect: 'manual' });
        let current = url;
        for (let hops = 0; isRedirect(response.status); hops += 1) {
          const next = redirectTarget(request.operation, response, current, hops, maxRedirects);
          await response.body?.cancel();
          current = next;
          response = await fetch(current, { method: 'GET', headers, signal: exchange.signal, redirect: 'manual' });
        }
        exchange.headersArrived();
        const bytes = await readBody(response, maxResponseBytes, exchange, request.operation, request.url);
        // Whatever their length: structurally, inside the reply's strings (see redactReplyBody).
        const body = redactReplyBody(decodeBody(bytes, response.headers.get('content-type')), secrets);
        const replyHeaders: Record<string, string> = {};
        // Names come lower-cased. Repeats are joined already, except set-cookie, which forEach yields
        // once per cookie; join those too rather than keep only the last.
        response.headers.forEach((value, name) => {
          const earlier = replyHeaders[name];
          replyHeaders[name] = earlier === undefined ? value : `${earlier}, ${value}`;
        });
        return { status: response.status, headers: replyHeaders, body, durationMs: performance.now() - started };
      } catch (error) {
        throw classify(error, request, exchange, secrets);
      } finally {
        exchange.close();
        sendEnded?.();
      }
    },
  };
}

/**
 * One exchange's abort signal: the caller's signal or the whole-response deadline, whichever comes
 * first; and what had arrived when it fired, so a timeout says "no reply" only when that is true.
 */
class Exchange {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#callerSignal?.reason);
  /** Undefined until the status line and headers came; then the body bytes read so far. */
  receivedBytes: number | undefined;

  constructor(request: HttpGet, deadlineMs: number) {
    this.#callerSignal = request.signal;
    this.#timer = setTimeout(() => this.#controller.abort(new AttemptTimeoutError(deadlineMs)), deadlineMs);
    this.#callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    if (this.#callerSignal?.aborted) this.#controller.abort(this.#callerSignal.reason);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  headersArrived(): void {
    this.receivedBytes = 0;
  }

  /** Drops the connection (reading stops, the socket is released) with `reason`. */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/**
 * The body as bytes, read chunk by chunk (after decompression) and given up as soon as it passes
 * `limit`: peak memory stays near the limit whatever the server sends.
 */
async function readBody(response: Response, limit: number, exchange: Exchange, operation: string, url: URL): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    const error = new ResponseTooLargeError(operation, limit, declared, url);
    exchange.abort(error);
    throw error;
  }
  if (response.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    exchange.receivedBytes = total;
    if (total > limit) {
      const error = new ResponseTooLargeError(operation, limit, total, url);
      // Aborting (rather than only cancelling the reader) also stops the decompressor and the socket.
      exchange.abort(error);
      await reader.cancel(error).catch(() => undefined);
      throw error;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** Where a redirect points, if the transport may follow it: same origin only, a bounded number of times. */
function redirectTarget(operation: string, response: Response, current: URL, hops: number, maxRedirects: number): URL {
  const location = response.headers.get('location');
  if (location === null) throw new RedirectRefusedError(operation, 'no-location', response.status, current);
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new RedirectRefusedError(operation, 'no-location', response.status, current);
  }
  if (next.origin !== current.origin) throw new RedirectRefusedError(operation, 'cross-origin', response.status, current, next);
  if (hops >= maxRedirects) throw new RedirectRefusedError(operation, 'too-many', response.status, current, next);
  return next;
}

function withUserAgent(headers: Readonly<Record<string, string>>, userAgent: string): Record<string, string> {
  const hasOwn = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
  return hasOwn ? { ...headers } : { ...headers, 'user-agent': userAgent };
}

/**
 * fetch refuses URLs with user info (and quotes the URL, password included, in its error). The
 * credentials go where a browser or curl puts them, an `Authorization: Basic` header, unless the
 * request brings its own Authorization.
 */
function withCredentials(url: URL, headers: Record<string, string>): { url: URL; headers: Record<string, string> } {
  if (url.username === '' && url.password === '') return { url, headers };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const hasOwn = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  if (hasOwn) return { url: bare, headers };
  const basic = Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64');
  return { url: bare, headers: { ...headers, authorization: `Basic ${basic}` } };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function classify(error: unknown, request: HttpGet, exchange: Exchange, secrets: readonly string[]): unknown {
  if (error instanceof ResponseTooLargeError || error instanceof RedirectRefusedError) return error;
  const signal = exchange.signal;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof ResponseTooLargeError) return reason;
    if (isTimeoutReason(reason)) return new HttpTimeoutError(request.operation, timeoutMsOf(reason), request.url, exchange.receivedBytes);
    // Aborted for another reason (shutdown): hand the caller its own reason back, as fetch does.
    return reason;
  }
  const code = connectionCode(error);
  if (code !== undefined || isConnectionMessage(error)) {
    return new HttpConnectionError(request.operation, { cause: error, url: request.url, code });
  }
  // Undici quotes offending header values and URLs in its messages; those may be API keys.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new HttpRequestError(request.operation, redactText(detail, secrets));
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new InvalidTransportOptionError(option, value);
  return value;
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
