/**
 * Every fault the simulator can inject, seen through the typed client with the real transport and
 * scheduler: each surfaces as the right named error (or is retried away), never as a crash or as a
 * silent empty result. Each fault runs in its own simulator with share 1, so the outcome is certain.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEfaClient, type EfaClient } from '../../src/efa/client.js';
import {
  EfaHtmlPageError,
  EfaHttpStatusError,
  EfaNotJsonError,
  EfaShapeError,
} from '../../src/efa/errors.js';
import type { Operation } from '../../src/efa/operations.js';
import { HttpTimeoutError, RetriesExhaustedError } from '../../src/http/errors.js';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import {
  createRequestScheduler,
  type MeteredRequestScheduler,
  type RequestSchedulerOptions,
} from '../../src/http/scheduler.js';
import type { SchedulerEvent } from '../../src/http/types.js';
import { pinTypesFor, startSimulator, type Simulator, type World } from '../../src/sim/index.js';
import { BOX, boxWorld, FILTERS, simError, TODAY, type Box } from './client-sim-world.js';
import { rejection } from './fakes.js';

interface Rig {
  readonly sim: Simulator;
  readonly client: EfaClient;
  readonly scheduler: MeteredRequestScheduler;
  readonly events: SchedulerEvent[];
}

let world: World;
beforeAll(() => {
  world = boxWorld();
});

/** A simulator with `faults` and a client on a fast scheduler; the simulator is always stopped. */
async function withFaults(
  faults: string,
  schedulerOptions: Partial<RequestSchedulerOptions>,
  fn: (rig: Rig) => Promise<void>,
): Promise<void> {
  const sim = await startSimulator({ port: 0, world, today: TODAY, ...(faults === '' ? {} : { faults }) });
  try {
    const events: SchedulerEvent[] = [];
    const scheduler = createRequestScheduler({
      requestsPerSecond: 100,
      concurrency: 2,
      retries: 2,
      timeoutMs: 5_000,
      baseDelayMs: 1,
      maxDelayMs: 5,
      onEvent: (event) => events.push(event),
      ...schedulerOptions,
    });
    const client = createEfaClient({ baseUrl: sim.url, transport: createFetchTransport(), scheduler });
    await fn({ sim, client, scheduler, events });
  } finally {
    await sim.stop();
  }
}

function exhausted(error: unknown, operation: Operation, attempts: number): RetriesExhaustedError {
  expect(error).toBeInstanceOf(RetriesExhaustedError);
  expect(error).toMatchObject({ operation, attempts, retryable: false });
  return error as RetriesExhaustedError;
}

function causeOf<T>(error: RetriesExhaustedError, type: abstract new (...args: never[]) => T): T {
  expect(error.cause).toBeInstanceOf(type);
  return error.cause as T;
}

describe('EFA client against the simulator: faults', () => {
  it('error5xx=1: RetriesExhaustedError after retries+1 attempts, caused by a retryable EfaHttpStatusError', async () => {
    await withFaults('error5xx=1', { retries: 2 }, async ({ sim, client, scheduler }) => {
      const error = exhausted(await rejection(client.coordInfoBox({ bbox: BOX, filters: FILTERS })), 'coordInfo', 3);
      const cause = causeOf(error, EfaHttpStatusError);
      expect(cause.status).toBeGreaterThanOrEqual(500);
      expect([500, 502, 503]).toContain(cause.status);
      expect(cause).toMatchObject({
        operation: 'coordInfo',
        retryable: true,
        rateLimited: false,
        retryAfterMs: undefined,
        excerpt: simError(cause.status ?? 0, 'simulated server error'),
      });
      expect(cause.message).toBe(`coordInfo /efa/XML_COORD_REQUEST: HTTP ${cause.status}: ${cause.excerpt}`);
      expect(error.message).toContain('gave up after 3 attempts');
      expect(sim.requestLog).toHaveLength(3);
      expect(sim.requestLog.every((e) => e.fault === 'error5xx' && e.status >= 500 && e.path === '/efa/XML_COORD_REQUEST')).toBe(true);
      expect(sim.requestLog.at(-1)?.status).toBe(cause.status);
      expect(scheduler.stats()).toMatchObject({ requestsSent: 3, retries: 2, failures: 1 });
    });
  });

  it('rate429: a 429 is retried after its Retry-After of 1 s, and the retry succeeds', async () => {
    await withFaults('rate429=1:1', { retries: 2, requestsPerSecond: 50 }, async ({ sim, client, events }) => {
      // Two requests at once against a ceiling of one per second: the second to arrive gets a 429.
      const [a, b] = await Promise.all([
        client.coordInfoBox({ bbox: BOX, filters: FILTERS }),
        client.stopFinder({ type: 'any', name: world.stops()[0]?.id ?? 'x' }),
      ]);
      expect(a.records.length).toBeGreaterThan(0);
      expect(b.records).toHaveLength(1);
      expect([a.attempts, b.attempts].sort()).toEqual([1, 2]);

      const log = sim.requestLog;
      expect(log.map((e) => e.status).sort()).toEqual([200, 200, 429]);
      const limited = log.findIndex((e) => e.status === 429);
      const first = log[limited];
      const retry = log.slice(limited + 1).find((e) => e.path === first?.path && e.query === first?.query);
      expect(first?.fault).toBe('rate429');
      expect(retry?.status).toBe(200);
      expect((retry?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
      expect(events.filter((e) => e.kind === 'retry')).toEqual([
        expect.objectContaining({ kind: 'retry', attempt: 1, delayMs: 1000 }),
      ]);
      expect(events.some((e) => e.kind === 'rate' && e.reason === 'backoff')).toBe(true);
    });
  });

  it('rate429 without retries left: RetriesExhaustedError caused by a 429 with retryAfterMs 1000', async () => {
    await withFaults('rate429=1:1', { retries: 0, requestsPerSecond: 50 }, async ({ sim, client }) => {
      expect((await client.addInfo({ filterPublicationStatus: 'current' })).records.length).toBeGreaterThan(0);
      const error = exhausted(await rejection(client.addInfo({ filterPublicationStatus: 'current' })), 'addInfo', 1);
      expect(causeOf(error, EfaHttpStatusError)).toMatchObject({
        operation: 'addInfo',
        status: 429,
        retryable: true,
        rateLimited: true,
        retryAfterMs: 1000,
        excerpt: simError(429, 'too many requests'),
      });
      expect(sim.requestLog.map((e) => e.status)).toEqual([200, 429]);
    });
  });

  it('hang=1: each attempt times out; RetriesExhaustedError caused by HttpTimeoutError', async () => {
    await withFaults('hang=1', { retries: 1, timeoutMs: 300 }, async ({ sim, client }) => {
      const started = performance.now();
      const error = exhausted(await rejection(client.coordInfoBox({ bbox: BOX, filters: FILTERS })), 'coordInfo', 2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 300 - 20);
      const cause = causeOf(error, HttpTimeoutError);
      expect(cause).toMatchObject({ operation: 'coordInfo', timeoutMs: 300, retryable: true });
      expect(cause.url).toContain('/efa/XML_COORD_REQUEST');
      expect(sim.requestLog).toHaveLength(2);
      expect(sim.requestLog.every((e) => e.fault === 'hang' && e.status === 0)).toBe(true);
    });
  });

  it('truncate=1: EfaNotJsonError (retried, then given up), never an empty record list', async () => {
    await withFaults('truncate=1', { retries: 1 }, async ({ sim, client }) => {
      const error = exhausted(await rejection(client.coordInfoBox({ bbox: BOX, filters: FILTERS })), 'coordInfo', 2);
      const cause = causeOf(error, EfaNotJsonError);
      expect(cause).toMatchObject({ operation: 'coordInfo', status: 200, retryable: true });
      expect(cause.excerpt.startsWith('{"pins":[{"type":')).toBe(true);
      expect(cause.message).toMatch(/^coordInfo \/efa\/XML_COORD_REQUEST: body is not JSON \((truncated|invalid JSON)\)/);
      expect(sim.requestLog).toHaveLength(2);
      expect(sim.requestLog.every((e) => e.fault === 'truncate' && e.status === 200)).toBe(true);
    });
  });

  it('malformed=1: EfaNotJsonError', async () => {
    await withFaults('malformed=1', { retries: 1 }, async ({ sim, client }) => {
      const error = exhausted(await rejection(client.servingLinesByName({ lineName: world.lines()[0]?.name ?? 'x' })), 'servingLines', 2);
      const cause = causeOf(error, EfaNotJsonError);
      expect(cause).toMatchObject({ operation: 'servingLines', status: 200, retryable: true });
      expect(cause.excerpt.startsWith('{"servingLines":[')).toBe(true);
      expect(cause.message).toContain('servingLines /efa/XML_SERVINGLINES_REQUEST: body is not JSON');
      expect(sim.requestLog.map((e) => e.fault)).toEqual(['malformed', 'malformed']);
    });
  });

  it('html200=1: EfaHtmlPageError with status 200', async () => {
    await withFaults('html200=1', { retries: 1 }, async ({ sim, client }) => {
      const error = exhausted(await rejection(client.opArea({ opareaSM: 'ALL' })), 'opArea', 2);
      const cause = causeOf(error, EfaHtmlPageError);
      expect(cause).toMatchObject({ operation: 'opArea', status: 200, retryable: true });
      expect(cause.excerpt.startsWith('<!DOCTYPE html><html><head><title>503 Service Unavailable</title>')).toBe(true);
      expect(cause.message).toContain('opArea /efa/XML_OPAREA_REQUEST: HTML page instead of JSON (HTTP 200)');
      expect(sim.requestLog.map((e) => [e.fault, e.status])).toEqual([
        ['html200', 200],
        ['html200', 200],
      ]);
    });
  });

  it('latency=150-200: succeeds, with durationMs of at least 150', async () => {
    await withFaults('latency=150-200', {}, async ({ sim, client }) => {
      const result = await client.coordInfoBox({ bbox: BOX, filters: FILTERS });
      expect(result.attempts).toBe(1);
      expect(result.durationMs).toBeGreaterThanOrEqual(150);
      expect(result.records.length).toBeGreaterThan(10);
      expect(sim.requestLog).toHaveLength(1);
      expect(sim.requestLog[0]?.durationMs).toBeGreaterThanOrEqual(150);
    });
  });

  it('failbox: a box containing the point fails with a 503 cause, a box elsewhere succeeds', async () => {
    await withFaults('failbox=9.17:48.77', { retries: 1 }, async ({ sim, client }) => {
      const error = exhausted(await rejection(client.coordInfoBox({ bbox: BOX, filters: FILTERS })), 'coordInfo', 2);
      expect(causeOf(error, EfaHttpStatusError)).toMatchObject({
        operation: 'coordInfo',
        status: 503,
        retryable: true,
        excerpt: simError(503, 'simulated permanent failure of this area'),
      });
      expect(sim.requestLog.map((e) => [e.fault, e.status])).toEqual([
        ['failbox', 503],
        ['failbox', 503],
      ]);

      const elsewhere: Box = [9.2, 48.79, 9.24, 48.82];
      const result = await client.coordInfoBox({ bbox: elsewhere, filters: FILTERS });
      const truth = [...world.pinsInBox(elsewhere, pinTypesFor(['STOP', 'POI_POINT']))];
      expect(truth.length).toBeGreaterThan(0);
      expect(result.records.map((p) => p.id ?? p.name).sort()).toEqual(truth.map((p) => p.id ?? p.name).sort());
      expect(sim.requestLog.at(-1)).toMatchObject({ status: 200 });
      expect(sim.requestLog.at(-1)?.fault).toBeUndefined();
    });
  });

  it('JSON of the wrong shape: EfaShapeError, not retried (the server saw one request)', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"foo":1}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const scheduler = createRequestScheduler({ requestsPerSecond: 100, concurrency: 1, retries: 3, baseDelayMs: 1 });
      const client = createEfaClient({ baseUrl: `http://127.0.0.1:${port}/efa`, transport: createFetchTransport(), scheduler });
      const error = await rejection(client.coordInfoBox({ bbox: BOX, filters: FILTERS }));
      expect(error).toBeInstanceOf(EfaShapeError);
      expect(error).toMatchObject({ operation: 'coordInfo', status: 200, excerpt: '{"foo":1}', retryable: false, path: ['pins'] });
      expect(String(error)).toBe('EfaShapeError: coordInfo /efa/XML_COORD_REQUEST: unexpected JSON at pins (missing): {"foo":1}');
      expect(seen).toHaveLength(1);
      expect(seen[0]?.startsWith('/efa/XML_COORD_REQUEST?')).toBe(true);
      expect(scheduler.stats()).toMatchObject({ requestsSent: 1, retries: 0, failures: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
