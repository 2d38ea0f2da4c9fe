import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchTransport } from '../../src/http/fetch-transport.js';
import { createRequestScheduler } from '../../src/http/scheduler.js';
import type { RetryHint } from '../../src/http/types.js';
import { maxInWindow } from './fake-clock.js';

/**
 * The rate ceiling as the upstream counts it: requests timed by a server in a process of its own (its
 * clock is not stalled by the client's event loop), at the `request` event, while the client's event
 * loop is stalled on purpose the two ways a run stalls it: a slow write of the count's journal (an
 * awaited 150 ms) and a large answer's parse (a synchronous busy loop). Every sliding one-second
 * window must hold at most floor(rate) requests, with no allowance: the journal is written before
 * the token is taken, nothing is awaited from the grant to the write, and a request that waits for
 * its connection after the grant counts from the grant until its write (wire.ts, token-bucket.ts).
 *
 * The server answers some requests 429 with Retry-After: those go through the adaptive rate (which
 * only lowers it) and are sent again after the pause, by the same path (so are the outage circuit's
 * probes: scheduler.ts #attemptOnce). Its keep-alive lasts 1 s, the simulator's: undici then opens a
 * connection per request, as against an upstream that closes them, so the write waits for a connect.
 */
const SERVER = `
import { createServer } from 'node:http';
let n = 0;
const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  n += 1;
  process.stdout.write(at.toFixed(3) + '\\n');
  if (n % ${'${EVERY_429}'} === 0) { res.writeHead(429, { 'Retry-After': '1' }); res.end('slow down'); return; }
  res.setHeader('Content-Type', 'application/json');
  res.end('{"ok":true}');
});
server.keepAliveTimeout = 1000;
server.listen(0, '127.0.0.1', () => process.stderr.write('port ' + server.address().port + '\\n'));
`;

interface WireServer {
  readonly base: string;
  readonly times: number[];
  readonly child: ChildProcess;
}

const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill();
    if (child.exitCode === null) await once(child, 'exit');
  }
});

async function startServer(every429: number): Promise<WireServer> {
  const code = SERVER.replace('${EVERY_429}', String(every429));
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const times: number[] = [];
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) times.push(Number(line));
  });
  const port = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const m = /port (\d+)/.exec(err);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`wire server exited: ${err}`)));
  });
  return { base: `http://127.0.0.1:${port}`, times, child };
}

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // A large answer's parse: the event loop does nothing else meanwhile.
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function night(opts: { rate: number; concurrency: number; calls: number; every429: number; parseEvery: number }): Promise<{ times: number[]; sent: number; journalled: number }> {
  const server = await startServer(opts.every429);
  const transport = createFetchTransport();
  const scheduler = createRequestScheduler({ requestsPerSecond: opts.rate, concurrency: opts.concurrency, retries: 3, baseDelayMs: 50, recoverAfterSuccesses: 5 });
  // The run's journal (src/run/lifecycle.ts): a block of 16 at a time, each write a slow 150 ms.
  let journalled = 0;
  let writing: Promise<void> | undefined;
  scheduler.countBeforeSending((count) => {
    if (count <= journalled) return undefined;
    writing ??= sleep(150).then(() => {
      journalled = count + 15;
      writing = undefined;
    });
    return writing.then(() => undefined);
  });
  let replies = 0;
  const calls = Array.from({ length: opts.calls }, (_, i) =>
    scheduler.run('coordInfo', async (signal) => {
      const reply = await transport.send({ url: new URL(`/coord?i=${i}`, server.base), headers: {}, operation: 'coordInfo', signal });
      if (reply.status === 429) {
        const hint: RetryHint & Error = Object.assign(new Error('429'), { retryable: true, rateLimited: true, outage: true, retryAfterMs: Number(reply.headers['retry-after']) * 1000 });
        throw hint;
      }
      replies += 1;
      if (replies % opts.parseEvery === 0) busy(120);
      return reply.status;
    }),
  );
  const statuses = await Promise.all(calls);
  expect(statuses.every((s) => s === 200)).toBe(true);
  await sleep(100);
  return { times: server.times, sent: scheduler.stats().requestsSent, journalled };
}

describe('the rate ceiling on the wire', { timeout: 60_000 }, () => {
  it('holds at 40/s with 8 in flight while the journal and a parse stall the event loop', async () => {
    const { times, sent, journalled } = await night({ rate: 40, concurrency: 8, calls: 240, every429: 120, parseEvery: 40 });
    // Every request the scheduler sent reached the server, the 429s' second tries included.
    expect(times.length).toBe(sent);
    expect(sent).toBeGreaterThan(240);
    expect(journalled).toBeGreaterThanOrEqual(sent);
    expect(maxInWindow(times)).toBeLessThanOrEqual(40);
  });

  it('holds at 2.5/s (at most 2 in any second) while the event loop is stalled', async () => {
    const { times, sent, journalled } = await night({ rate: 2.5, concurrency: 8, calls: 14, every429: 1000, parseEvery: 2 });
    expect(times.length).toBe(sent);
    expect(sent).toBe(14);
    expect(journalled).toBeGreaterThanOrEqual(sent);
    expect(maxInWindow(times)).toBeLessThanOrEqual(2);
  });
});
