import { createEfaClient, type EfaClientOptions } from '../../src/efa/client.js';
import type { HttpGet, HttpReply, RequestScheduler, RetryHint, Transport } from '../../src/http/types.js';

type Scripted = HttpReply | Error | ((request: HttpGet) => HttpReply);

/** Answers from a script, one entry per request; the last entry repeats. */
export class FakeTransport implements Transport {
  readonly requests: HttpGet[] = [];

  constructor(private readonly script: Scripted[]) {}

  async send(request: HttpGet): Promise<HttpReply> {
    this.requests.push(request);
    const step = this.script[Math.min(this.requests.length - 1, this.script.length - 1)];
    if (step === undefined) throw new Error('empty script');
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(request) : step;
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): HttpReply {
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers }, durationMs: 5 };
}

export function text(body: string, status = 200, headers: Record<string, string> = {}): HttpReply {
  return { status, body, headers, durationMs: 5 };
}

function isRetryHint(value: unknown): value is RetryHint {
  return typeof value === 'object' && value !== null && 'retryable' in value && value.retryable === true;
}

/** Retries retryable errors up to `maxAttempts`, without waiting; remembers what it was told. */
export class RetryingScheduler implements RequestScheduler {
  requestsSent = 0;
  readonly retryAfters: (number | undefined)[] = [];
  readonly operations: string[] = [];

  constructor(private readonly maxAttempts = 3) {}

  async run<T>(operation: string, attempt: (signal: AbortSignal, attemptNo: number) => Promise<T>): Promise<T> {
    this.operations.push(operation);
    for (let attemptNo = 1; ; attemptNo++) {
      this.requestsSent++;
      try {
        return await attempt(new AbortController().signal, attemptNo);
      } catch (error) {
        if (!isRetryHint(error) || attemptNo >= this.maxAttempts) throw error;
        this.retryAfters.push(error.retryAfterMs);
      }
    }
  }
}

export const stop = { type: 'STOP', id: 'de:08111:6118', name: 'Hauptbahnhof', coord: { lat: 48.7843, lon: 9.1819 }, motTypes: '1,3' };
export const pinsBody = { pins: [stop], systemMessages: [{ type: 'warning', code: 12, text: 'capped' }] };

export function setup(script: ConstructorParameters<typeof FakeTransport>[0], options: Partial<EfaClientOptions> = {}) {
  const transport = new FakeTransport(script);
  const scheduler = new RetryingScheduler(3);
  const client = createEfaClient({ baseUrl: 'http://127.0.0.1:8080/efa', transport, scheduler, ...options });
  return { transport, scheduler, client };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
