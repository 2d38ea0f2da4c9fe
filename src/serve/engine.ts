import { Worker } from 'node:worker_threads';
import type { EngineReply, EngineRequest, EngineWorkerData, ResetRequest } from './engine-worker.js';
import { workerEntry } from '../util/worker-entry.js';
import { collectAfterLargeAnswer, LARGE_ANSWER_BYTES } from './collect-garbage.js';
import { cstring, message, splitMessages } from './protocol.js';

/** PGlite could not answer: the worker was terminated (cancel, SIGTERM) or died. */
export class EngineStoppedError extends Error {
  override name = 'EngineStoppedError';
}

/** After a client's message the session was not the client role any more: its answer is withheld and PGlite restarted. */
export class EngineEscapedError extends Error {
  override name = 'EngineEscapedError';
}

/** An engine call that serve makes on its own (the hand-over reset, a departed client's rollback) did not answer in time: PGlite was restarted. */
export class EngineHungError extends EngineStoppedError {
  override name = 'EngineHungError';
}

/** How long serve's own engine calls (the reset between clients, a departed client's rollback) may take before PGlite is restarted: they take milliseconds, seconds on a machine under load. */
export const OWN_CALL_DEADLINE_MS = 10_000;

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
  /** Clients' protocol-level statements carried into the next worker by a planned restart (`renew`). */
  private carried: EngineWorkerData['kept'];
  /** PGlite's WebAssembly memory after the last request, in bytes (it never shrinks while the worker lives). */
  memory = 0;
  /** The session's statement_timeout in ms (0: none) after the last request: the owner's, for serve's watchdog. */
  clientStatementTimeoutMs = 0;

  constructor(
    private readonly data: EngineWorkerData,
    private readonly onExit: (why: string) => void,
  ) {}

  async start(): Promise<void> {
    const { url, execArgv } = workerEntry('engine-worker', import.meta.url);
    const kept = this.carried;
    this.carried = undefined;
    const worker = new Worker(url, { workerData: { ...this.data, prepareRoles: !this.rolesPrepared, ...(kept === undefined ? {} : { kept }) } satisfies EngineWorkerData, execArgv });
    this.worker = worker;
    await new Promise<void>((resolve, reject) => {
      const onReady = (reply: EngineReply): void => {
        if (reply.ready === true) {
          this.rolesPrepared = true;
          this.memory = reply.memory ?? 0;
          this.clientStatementTimeoutMs = reply.statementTimeoutMs ?? 0;
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
      if (reply.memory !== undefined) this.memory = reply.memory;
      if (reply.statementTimeoutMs !== undefined) this.clientStatementTimeoutMs = reply.statementTimeoutMs;
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

  /**
   * One request to the worker. With `deadlineMs`, a request that has no answer by then fails with
   * EngineHungError, for the caller to restart PGlite (a timer firing inside the engine,
   * idle_session_timeout for one, spins there for good): no call serve makes can hang it.
   */
  private request(body: RequestBody<EngineRequest>, deadlineMs = 0): Promise<EngineReply> {
    const worker = this.worker;
    if (worker === undefined) return Promise.reject(new EngineStoppedError('PGlite is not running'));
    const id = this.next++;
    return new Promise<EngineReply>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = <T>(settle: (value: T) => void) => (value: T): void => {
        clearTimeout(timer);
        settle(value);
      };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject) });
      if (deadlineMs > 0) {
        timer = setTimeout(() => {
          if (!this.pending.has(id) || this.worker !== worker) return;
          const why = `PGlite did not answer serve's own "${body.op}" within ${deadlineMs / 1000} s`;
          this.pending.delete(id);
          // The caller restarts PGlite (session.ts): it knows who waits on it.
          reject(new EngineHungError(why));
        }, deadlineMs);
        timer.unref();
      }
      worker.postMessage({ ...body, id } as EngineRequest);
    });
  }

  /** Protocol messages in, PGlite's answer out (one ReadyForQuery per Query and Sync, as PostgreSQL). `deadlineMs` for serve's own messages. */
  async raw(bytes: Buffer, deadlineMs = 0): Promise<Buffer> {
    const reply = await this.request({ op: 'raw', bytes }, deadlineMs);
    if (reply.error !== undefined) throw new Error(reply.error);
    if (reply.escaped === true) throw new EngineEscapedError('the session was not the client role after a client message');
    const out = reply.bytes ?? new Uint8Array(0);
    // Sent on and dropped by the caller at once; only a collection gives its memory back.
    if (out.byteLength >= LARGE_ANSWER_BYTES) collectAfterLargeAnswer();
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  async reset(request: ResetRequest): Promise<void> {
    const reply = await this.request({ op: 'reset', ...request }, OWN_CALL_DEADLINE_MS);
    if (reply.error !== undefined) throw new Error(reply.error);
  }

  /**
   * Opens PGlite again while nobody is inside a transaction, to give its memory back (WebAssembly
   * memory never shrinks): the clients' protocol-level prepared statements, `outgoing`'s (the last
   * owner's) included, are carried into the new worker, so no client sees the difference.
   */
  async renew(outgoing: string | undefined, why: string): Promise<void> {
    const reply = await this.request({ op: 'keep', ...(outgoing === undefined ? {} : { outgoing }) }, OWN_CALL_DEADLINE_MS).catch(() => undefined);
    this.carried = reply?.kept;
    await this.restart(why);
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

/** The rows of one simple query serve runs for itself, as text (NULL as ''). */
async function queryRows(engine: Engine, sql: string): Promise<string[][]> {
  // No deadline: these run once, before any client, and the first statements after opening can be slow on a busy machine.
  const answer = await engine.raw(message('Q', cstring(sql)));
  const rows: string[][] = [];
  for (const m of splitMessages(answer)) {
    if (m[0] !== 0x44) continue;
    // DataRow: a count, then each value as length + bytes.
    const row: string[] = [];
    for (let i = 0, field = 7; i < m.readInt16BE(5); i++) {
      const size = m.readInt32BE(field);
      row.push(size < 0 ? '' : m.subarray(field + 4, field + 4 + size).toString('utf8'));
      field += 4 + Math.max(size, 0);
    }
    rows.push(row);
  }
  return rows;
}

/** What PostgreSQL reports to every client at startup (ParameterStatus), read from PGlite once. */
export async function serverSettings(engine: Engine): Promise<Map<string, string>> {
  const names = ['server_version', 'server_encoding', 'client_encoding', 'DateStyle', 'IntervalStyle', 'TimeZone', 'integer_datetimes', 'standard_conforming_strings', 'is_superuser', 'session_authorization'];
  const [row = []] = await queryRows(engine, `SELECT ${names.map((n) => `current_setting('${n}')`).join(', ')}`);
  return new Map(names.map((name, i) => [name, row[i] ?? '']));
}

/** The names of every setting the engine has, in lower case: a startup parameter outside them is refused as PostgreSQL refuses it. */
export async function knownSettings(engine: Engine): Promise<Set<string>> {
  return new Set((await queryRows(engine, 'SELECT lower(name) FROM pg_settings')).map(([name]) => name ?? ''));
}
