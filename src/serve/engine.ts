import { Worker } from 'node:worker_threads';
import type { EngineReply, EngineRequest, EngineWorkerData, ResetRequest } from './engine-worker.js';
import { workerEntry } from '../util/worker-entry.js';

/** PGlite could not answer: the worker was terminated (cancel, SIGTERM) or died. */
export class EngineStoppedError extends Error {
  override name = 'EngineStoppedError';
}

/** After a client's message the session was not the client role any more: its answer is withheld and PGlite restarted. */
export class EngineEscapedError extends Error {
  override name = 'EngineEscapedError';
}

type Pending = { resolve: (reply: EngineReply) => void; reject: (e: Error) => void };

/** Distributive Omit, so each request kind keeps its own fields. */
type RequestBody<T> = T extends unknown ? Omit<T, 'id'> : never;


/**
 * The main thread's side of PGlite-in-a-worker (see engine-worker.ts): one request at a time, and
 * `restart` to end a statement that is running (PGlite opens the data directory again, as after a
 * crash; what the session held is gone).
 */
export class Engine {
  private worker: Worker | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private stopping = false;
  /** The roles were prepared by a worker that opened the database: a restart skips that. */
  private rolesPrepared = false;

  constructor(
    private readonly data: EngineWorkerData,
    private readonly onExit: (why: string) => void,
  ) {}

  async start(): Promise<void> {
    const { url, execArgv } = workerEntry('engine-worker', import.meta.url);
    const worker = new Worker(url, { workerData: { ...this.data, prepareRoles: !this.rolesPrepared } satisfies EngineWorkerData, execArgv });
    this.worker = worker;
    await new Promise<void>((resolve, reject) => {
      const onReady = (reply: EngineReply): void => {
        if (reply.ready === true) {
          this.rolesPrepared = true;
          worker.off('error', reject);
          resolve();
        }
      };
      worker.on('message', onReady);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new EngineStoppedError(`PGlite's worker exited with code ${code} while opening the database`)));
    });
    worker.on('message', (reply: EngineReply) => {
      const waiting = this.pending.get(reply.id);
      if (waiting === undefined) return;
      this.pending.delete(reply.id);
      waiting.resolve(reply);
    });
    worker.on('error', () => undefined);
    worker.once('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failPending(`PGlite's worker exited (code ${code})`);
      if (!this.stopping) this.onExit(`PGlite's worker exited (code ${code})`);
    });
  }

  private failPending(why: string): void {
    for (const waiting of this.pending.values()) waiting.reject(new EngineStoppedError(why));
    this.pending.clear();
  }

  private request(body: RequestBody<EngineRequest>): Promise<EngineReply> {
    const worker = this.worker;
    if (worker === undefined) return Promise.reject(new EngineStoppedError('PGlite is not running'));
    const id = this.next++;
    return new Promise<EngineReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id } as EngineRequest);
    });
  }

  /** Protocol messages in, PGlite's answer out. */
  async raw(bytes: Buffer): Promise<Buffer> {
    const reply = await this.request({ op: 'raw', bytes });
    if (reply.error !== undefined) throw new Error(reply.error);
    if (reply.escaped === true) throw new EngineEscapedError('the session was not the client role after a client message');
    const out = reply.bytes ?? new Uint8Array(0);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  async reset(request: ResetRequest): Promise<void> {
    const reply = await this.request({ op: 'reset', ...request });
    if (reply.error !== undefined) throw new Error(reply.error);
  }

  /** Ends whatever runs and opens PGlite again. */
  async restart(why = 'the statement was cancelled'): Promise<void> {
    const old = this.worker;
    this.worker = undefined;
    this.failPending(why);
    await old?.terminate();
    await this.start();
  }

  /** Closes PGlite cleanly when it is idle within `graceMs`, else terminates the worker (the database opens afterwards, as after a crash). */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (worker === undefined) return;
    const busy = this.pending.size > 0;
    const closed = busy ? Promise.resolve(false) : this.request({ op: 'close' }).then(() => true, () => false);
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), graceMs).unref());
    await Promise.race([closed, timer]);
    this.worker = undefined;
    this.failPending('the server is stopping');
    await worker.terminate();
  }
}

/** What PostgreSQL reports to every client at startup (ParameterStatus), read from PGlite once. */
export async function serverSettings(engine: Engine): Promise<Map<string, string>> {
  const names = ['server_version', 'server_encoding', 'client_encoding', 'DateStyle', 'IntervalStyle', 'TimeZone', 'integer_datetimes', 'standard_conforming_strings', 'is_superuser', 'session_authorization'];
  const sql = `SELECT ${names.map((n) => `current_setting('${n}')`).join(', ')}`;
  const body = Buffer.concat([Buffer.from(sql, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('Q', 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  const answer = await engine.raw(Buffer.concat([head, body]));
  const settings = new Map<string, string>();
  for (let at = 0; at + 5 <= answer.length; ) {
    const length = answer.readInt32BE(at + 1);
    if (answer[at] === 0x44) {
      // DataRow: a count, then each value as length + bytes.
      let field = at + 7;
      for (const name of names) {
        const size = answer.readInt32BE(field);
        settings.set(name, size < 0 ? '' : answer.subarray(field + 4, field + 4 + size).toString('utf8'));
        field += 4 + Math.max(size, 0);
      }
    }
    at += 1 + length;
  }
  return settings;
}
