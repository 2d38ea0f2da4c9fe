import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptTimeoutError, HttpConnectionError, HttpRequestError, HttpTimeoutError } from '../../src/http/errors.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';

let server: Server;
let base: string;
const seen: IncomingMessage[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push(req);
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/ok') {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('X-Request-Echo', String(req.headers['x-api-key'] === 'k3y-value'));
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.end(JSON.stringify({ name: 'Stuttgart Hbf', umlaut: 'Königstraße' }));
  } else if (path === '/busy') {
    res.writeHead(503, { 'Retry-After': '7' });
    res.end('busy');
  } else if (path === '/hang') {
    // Never answers; the socket is dropped when the server closes.
  } else if (path === '/cut') {
    res.writeHead(200, { 'Content-Length': '1000' });
    res.write('x'.repeat(10));
    setTimeout(() => req.socket.destroy(), 20);
  } else {
    res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A loopback port nothing listens on: bind one, then let it go. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const transport = createFetchTransport({ userAgent: 'efa-sync-test/1' });

describe('createFetchTransport', () => {
  it('returns status, text body, lower-cased headers and a duration for a 200', async () => {
    const reply = await transport.send({
      url: new URL(`${base}/ok?outputFormat=rapidJSON`),
      headers: { 'X-API-Key': 'k3y-value' },
      operation: 'stopFinder',
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ name: 'Stuttgart Hbf', umlaut: 'Königstraße' });
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-echo']).toBe('true');
    expect(reply.headers['set-cookie']).toBe('a=1, b=2');
    expect(Object.keys(reply.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(reply.durationMs).toBeGreaterThan(0);
    const req = seen.at(-1);
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/ok?outputFormat=rapidJSON');
    expect(req?.headers['user-agent']).toBe('efa-sync-test/1');
  });

  it('keeps a user-agent the request sets itself', async () => {
    await transport.send({ url: new URL(`${base}/ok`), headers: { 'User-Agent': 'custom/2' }, operation: 'x' });
    expect(seen.at(-1)?.headers['user-agent']).toBe('custom/2');
  });

  it('returns a 503 as a reply rather than throwing', async () => {
    const reply = await transport.send({ url: new URL(`${base}/busy`), headers: {}, operation: 'addInfo' });
    expect(reply.status).toBe(503);
    expect(reply.body).toBe('busy');
    expect(reply.headers['retry-after']).toBe('7');
  });

  it('turns a hung request into HttpTimeoutError on the scheduler timeout, without secrets in the url', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new AttemptTimeoutError(150)), 150);
    const error = await transport
      .send({
        url: new URL(`${base}/hang?name_sf=Hbf&apiKey=s3cret-in-query`),
        headers: { authorization: 'Bearer s3cret-in-header' },
        operation: 'stopFinder',
        signal: controller.signal,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTimeoutError);
    const timeout = error as HttpTimeoutError;
    expect(timeout.retryable).toBe(true);
    expect(timeout.timeoutMs).toBe(150);
    expect(timeout.operation).toBe('stopFinder');
    expect(timeout.url).toBe(`${base}/hang?name_sf=Hbf&apiKey=***`);
    expect(timeout.message).not.toContain('s3cret');
  });

  it('recognises AbortSignal.timeout() as a timeout too', async () => {
    const error = await transport
      .send({ url: new URL(`${base}/hang`), headers: {}, operation: 'opArea', signal: AbortSignal.timeout(100) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTimeoutError);
    expect((error as HttpTimeoutError).timeoutMs).toBeUndefined();
  });

  it('hands back the reason of a non-timeout abort (shutdown) untouched', async () => {
    const controller = new AbortController();
    const reason = new Error('shutdown');
    setTimeout(() => controller.abort(reason), 50);
    const error = await transport
      .send({ url: new URL(`${base}/hang`), headers: {}, operation: 'opArea', signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  it('turns a refused connection into HttpConnectionError', async () => {
    const port = await closedPort();
    const error = await transport
      .send({ url: new URL(`http://127.0.0.1:${port}/efa`), headers: { 'x-api-key': 'k3y-value' }, operation: 'coordInfo' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpConnectionError);
    const connection = error as HttpConnectionError;
    expect(connection.retryable).toBe(true);
    expect(connection.code).toBe('ECONNREFUSED');
    expect(connection.operation).toBe('coordInfo');
    expect(connection.cause).toBeInstanceOf(TypeError);
    expect(connection.message).not.toContain('k3y-value');
  });

  it('turns a connection destroyed mid-body into HttpConnectionError', async () => {
    const error = await transport
      .send({ url: new URL(`${base}/cut`), headers: {}, operation: 'servingLines' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpConnectionError);
    expect((error as HttpConnectionError).code).toBe('UND_ERR_SOCKET');
  });

  it('reports a request that cannot be sent as not retryable, with header values scrubbed', async () => {
    const error = await transport
      .send({ url: new URL(`${base}/ok`), headers: { 'x-api-key': 'top-secret\nvalue' }, operation: 'stopFinder' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpRequestError);
    expect((error as HttpRequestError).retryable).toBe(false);
    expect((error as HttpRequestError).message).toContain('invalid header value');
    expect((error as HttpRequestError).message).not.toContain('top-secret');
  });

  it('does not retry an unsupported scheme as if the network had failed', async () => {
    const error = await transport
      .send({ url: new URL('ftp://127.0.0.1/efa'), headers: {}, operation: 'stopFinder' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpRequestError);
  });
});
