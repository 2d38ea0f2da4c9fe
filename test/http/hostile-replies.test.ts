import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient } from '../../src/efa/client.js';
import { HttpTimeoutError, RedirectRefusedError, ResponseTooLargeError, RetryAfterTooLongError } from '../../src/http/errors.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import { createFetchTransport, DEFAULT_MAX_RESPONSE_BYTES } from '../../src/http/fetch-transport.js';

/**
 * Replies a broken or hostile server may send, against the transport with its default limits. Each
 * case states the memory it may cost: the default limit is 64 MiB of decompressed body, so the
 * process may grow by that plus buffers, never by what the server sends.
 */
const MEMORY_BOUND_BYTES = 150 * 1024 * 1024;
const MiB = 1024 * 1024;

let server: Server;
let base: string;
let thief: Server;
let thiefBase: string;
const thiefSaw: IncomingMessage[] = [];
const seen: IncomingMessage[] = [];

/** Endless zeros in 1 MiB chunks, produced only as fast as the reader takes them. */
function* zeros(totalBytes = Number.POSITIVE_INFINITY): Generator<Buffer> {
  const chunk = Buffer.alloc(MiB);
  for (let sent = 0; sent < totalBytes; sent += chunk.length) yield chunk;
}

function stream(res: ServerResponse, source: Readable): void {
  // The client hangs up once it has had enough; that error is the point, not a failure.
  pipeline(source, res).catch(() => undefined);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push(req);
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/huge') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * MiB) });
    stream(res, Readable.from(zeros(200 * MiB)));
  } else if (path === '/endless') {
    res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked, no length
    stream(res, Readable.from(zeros()));
  } else if (path === '/bomb') {
    // 1 GiB of zeros compresses to about 1 MiB: the limit must count what comes out of gunzip.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    pipeline(Readable.from(zeros(1024 * MiB)), createGzip(), res).catch(() => undefined);
  } else if (path === '/drip') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"pins":[');
    const timer = setInterval(() => res.write('0,'), 20);
    res.on('close', () => clearInterval(timer));
  } else if (path === '/efa/XML_ADDINFO_REQUEST') {
    res.writeHead(429, { 'Retry-After': '999999', 'Content-Type': 'text/plain' }).end('slow down');
  } else if (path === '/away') {
    res.writeHead(302, { Location: `${thiefBase}/steal` }).end();
  } else if (path === '/moved') {
    res.writeHead(301, { Location: '/echo' }).end();
  } else if (path === '/loop') {
    res.writeHead(302, { Location: '/loop' }).end();
  } else if (path === '/echo') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ message: `your key ${String(req.headers['x-api-key'])} is not valid`, auth: req.headers.authorization ?? null }));
  } else {
    res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer(handle);
  thief = createServer((req, res) => {
    thiefSaw.push(req);
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => thief.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  thiefBase = `http://127.0.0.1:${(thief.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of [server, thief]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** Runs `call`, sampling the process's resident memory every 10 ms; returns its outcome and the peak growth. */
async function measured<T>(call: () => Promise<T>): Promise<{ outcome: T | unknown; peakGrowthBytes: number }> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const outcome = await call().catch((e: unknown) => e);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (process.env['SHOW_MEMORY']) process.stderr.write(`peak rss growth ${Math.round((peak - before) / MiB)} MiB\n`);
    return { outcome, peakGrowthBytes: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

const transport = createFetchTransport();
const get = (path: string, headers: Record<string, string> = {}): Promise<unknown> =>
  transport.send({ url: new URL(`${base}${path}`), headers, operation: 'coordInfo' });

describe('hostile replies: bounded memory', () => {
  it('refuses a 200 MB body by its Content-Length, before reading it', async () => {
    const { outcome, peakGrowthBytes } = await measured(() => get('/huge'));
    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    const error = outcome as ResponseTooLargeError;
    expect(error.retryable).toBe(false);
    expect(error.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(error.receivedBytes).toBe(200 * MiB);
    expect(peakGrowthBytes).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  it('stops an endless chunked body at the limit, and calls it too large, not "no reply"', async () => {
    const { outcome, peakGrowthBytes } = await measured(() => get('/endless'));
    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect((outcome as ResponseTooLargeError).receivedBytes).toBeGreaterThan(DEFAULT_MAX_RESPONSE_BYTES);
    expect((outcome as ResponseTooLargeError).receivedBytes).toBeLessThan(DEFAULT_MAX_RESPONSE_BYTES + 2 * MiB);
    expect(peakGrowthBytes).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  it('counts a gzip bomb after decompression and stops it at the limit', async () => {
    const { outcome, peakGrowthBytes } = await measured(() => get('/bomb'));
    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect((outcome as ResponseTooLargeError).receivedBytes).toBeGreaterThan(DEFAULT_MAX_RESPONSE_BYTES);
    expect(peakGrowthBytes).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  it('honours a smaller configured limit', async () => {
    const small = createFetchTransport({ maxResponseBytes: 4 * MiB });
    const error = await small.send({ url: new URL(`${base}/endless`), headers: {}, operation: 'opArea' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).maxResponseBytes).toBe(4 * MiB);
  });

  it('ends a body that drips forever at the whole-response deadline, saying what had arrived', async () => {
    const dripping = createFetchTransport({ deadlineMs: 300 });
    const started = performance.now();
    const error = await dripping.send({ url: new URL(`${base}/drip`), headers: {}, operation: 'addInfo' }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(HttpTimeoutError);
    const timeout = error as HttpTimeoutError;
    expect(timeout.timeoutMs).toBe(300);
    expect(timeout.receivedBytes).toBeGreaterThan(0);
    expect(timeout.message).toMatch(/reply incomplete \(\d+ bytes received\) after 300 ms/);
  });
});

describe('hostile replies: bounded waiting', () => {
  it('fails a call at once, as a warning, when the server says Retry-After: 999999', async () => {
    const scheduler = createRequestScheduler({ requestsPerSecond: 50, concurrency: 2 });
    const client = createEfaClient({ baseUrl: `${base}/efa`, transport, scheduler });
    const started = performance.now();
    const error = await client.addInfo().catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(RetryAfterTooLongError);
    expect(error).toMatchObject({ retryAfterMs: 999_999_000, maxRetryAfterMs: 300_000, level: 'warn' });
    expect(scheduler.requestsSent).toBe(1);
  });
});

describe('redirects and credentials', () => {
  it('does not follow a redirect to another port, and the API key never reaches it', async () => {
    const error = await get('/away', { 'X-Api-Key': 'key-for-this-origin-only' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectRefusedError);
    const refused = error as RedirectRefusedError;
    expect(refused.reason).toBe('cross-origin');
    expect(refused.exitCode).toBe(2);
    expect(refused.to).toBe(`${thiefBase}/steal`);
    expect(refused.message).not.toContain('key-for-this-origin-only');
    expect(thiefSaw).toHaveLength(0);
  });

  it('follows a same-origin redirect with its headers, and gives up on a loop', async () => {
    const reply = (await get('/moved', { 'Accept-Language': 'de' })) as { status: number; body: string };
    expect(reply.status).toBe(200);
    expect(seen.at(-1)?.headers['accept-language']).toBe('de');
    const loop = await get('/loop').catch((e: unknown) => e);
    expect(loop).toBeInstanceOf(RedirectRefusedError);
    expect((loop as RedirectRefusedError).reason).toBe('too-many');
  });

  it('sends user info of the URL as Basic authorization instead of failing, with the password kept out of errors', async () => {
    const url = new URL(`${base}/echo`);
    url.username = 'efa';
    url.password = 'p@ss-word-123';
    const reply = await transport.send({ url, headers: {}, operation: 'stopFinder' });
    expect(reply.status).toBe(200);
    expect(seen.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from('efa:p@ss-word-123').toString('base64')}`);
    // The server echoed the Authorization header; the credential is cut from the body.
    expect(reply.body).not.toContain(Buffer.from('efa:p@ss-word-123').toString('base64'));
  });

  it('cuts configured secret header values from reply bodies, so server messages cannot carry them', async () => {
    const reply = (await get('/echo', { 'X-Api-Key': 'k3y-0123456789' })) as { body: string };
    expect(JSON.parse(reply.body)).toEqual({ message: 'your key *** is not valid', auth: null });
  });
});
