import { EngineStoppedError, type Engine } from './engine.js';
import { errorResponse, lastMessage, readyForQuery } from './protocol.js';

/**
 * PGlite has ONE session, shared by every client of `serve`. This makes the sharing explicit:
 *
 * - one client at a time owns the session, from its first message until PGlite answers
 *   ReadyForQuery "idle" (so a transaction, or an extended-protocol batch up to its Sync, is never
 *   interleaved with another client's statements); the others queue, in arrival order;
 * - an owner that sits inside a transaction (or mid-batch) without sending anything for
 *   `idleInTransactionMs` is rolled back and disconnected (FATAL 25P03), so the others go on;
 * - whenever the session passes to another client it is reset (settings, SQL-level prepared
 *   statements, cursors, LISTEN, advisory locks) and the new client's startup settings applied:
 *   one client's `SET search_path` or `PREPARE` is never seen by another;
 * - a cancel request drops the client's queued work, or ends its running statement by restarting
 *   PGlite (its transaction is then gone); a client that disconnects is treated the same way.
 */

export interface SessionClient {
  readonly id: number;
  /** Prefix of this client's protocol-level statement and portal names (see wire.ts). */
  readonly prefix: string;
  /** Startup settings (DateStyle, TimeZone, …) applied whenever the session passes to this client. */
  readonly settings: readonly (readonly [string, string])[];
  send(bytes: Buffer): void;
  /** Ends the client's connection with a FATAL error. */
  fatal(code: string, text: string): void;
}

interface Waiting {
  readonly client: SessionClient;
  readonly messages: Buffer[];
}

const CANCELED = '57014';
/** How long a disconnected client's running statement may go on before PGlite is restarted to end it. */
const DISCONNECT_GRACE_MS = 2_000;

export class SessionScheduler {
  private readonly clients = new Map<number, Waiting>();
  private readonly queue: Waiting[] = [];
  private owner: Waiting | undefined;
  /** The client the session's state belongs to: a reset is due when another takes it. */
  private lastOwner: number | undefined;
  private running: Waiting | undefined;
  /** PGlite is being opened again after a cancel: nothing runs until it is back. */
  private restarting = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly idleInTransactionMs: number,
    private readonly onProblem: (what: string) => void,
  ) {}

  add(client: SessionClient): void {
    this.clients.set(client.id, { client, messages: [] });
  }

  /** Queues one checked frontend message of `client`. */
  submit(client: SessionClient, bytes: Buffer): void {
    const entry = this.clients.get(client.id);
    if (entry === undefined || this.stopped) return;
    entry.messages.push(bytes);
    if (entry !== this.owner && !this.queue.includes(entry)) this.queue.push(entry);
    if (entry === this.owner) this.clearIdle();
    this.pump();
  }

  /** The client left (or was thrown out): its queued work is dropped, its transaction rolled back. */
  remove(id: number): void {
    const entry = this.clients.get(id);
    if (entry === undefined) return;
    this.clients.delete(id);
    entry.messages.length = 0;
    const at = this.queue.indexOf(entry);
    if (at >= 0) this.queue.splice(at, 1);
    if (this.running === entry) {
      // Its statement runs on for nobody. A short one is let finish (restarting PGlite costs every
      // client seconds, and a client could otherwise force that at will); a long one is ended.
      setTimeout(() => {
        if (this.running === entry) void this.restartEngine('a client that disconnected while its statement ran');
      }, DISCONNECT_GRACE_MS).unref();
      return;
    }
    if (this.owner === entry) void this.rollbackOwner();
  }

  /** A cancel request for client `id`: queued messages are answered "canceled"; a running statement is ended. */
  cancel(id: number): void {
    const entry = this.clients.get(id);
    if (entry === undefined) return;
    if (this.running === entry) {
      void this.restartEngine('a cancel request');
      return;
    }
    this.answerCanceled(entry);
  }

  stop(): void {
    this.stopped = true;
    this.clearIdle();
  }

  /** Answers each queued Query and each extended-protocol batch up to its Sync with "canceling statement". */
  private answerCanceled(entry: Waiting): void {
    const out: Buffer[] = [];
    let inBatch = false;
    for (const m of entry.messages.splice(0)) {
      const type = String.fromCharCode(m[0] ?? 0);
      if (type === 'Q') out.push(errorResponse('ERROR', CANCELED, 'canceling statement due to user request'), readyForQuery('I'));
      else if (type === 'S') {
        if (inBatch) out.push(errorResponse('ERROR', CANCELED, 'canceling statement due to user request'));
        out.push(readyForQuery(this.owner === entry ? 'E' : 'I'));
        inBatch = false;
      } else inBatch = true;
    }
    if (out.length > 0) entry.client.send(Buffer.concat(out));
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private async restartEngine(why: string): Promise<void> {
    const entry = this.running;
    if (this.restarting) return;
    this.restarting = true;
    this.onProblem(`ending the running statement (${why}): PGlite restarts`);
    try {
      await this.engine.restart();
    } catch (e) {
      this.onProblem(`PGlite did not restart: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.restarting = false;
    // The session (and every transaction in it) is new: nobody owns it, no reset is due.
    if (this.owner === entry) this.owner = undefined;
    if (this.running === entry) this.running = undefined;
    // What the cancelled client sent meanwhile runs first, in the new session.
    if (entry !== undefined && this.clients.get(entry.client.id) === entry && entry.messages.length > 0 && !this.queue.includes(entry)) this.queue.unshift(entry);
    this.lastOwner = undefined;
    this.pump();
  }

  private async rollbackOwner(): Promise<void> {
    const entry = this.owner;
    if (entry === undefined) return;
    this.clearIdle();
    this.running = entry;
    try {
      // A Sync ends a batch left open; ROLLBACK ends the transaction (a warning when there is none).
      await this.engine.raw(Buffer.concat([Buffer.from([0x53, 0, 0, 0, 4]), simpleQuery('ROLLBACK')]));
    } catch {
      // The engine restarted or stopped: the transaction is gone either way.
    }
    if (this.running === entry) this.running = undefined;
    if (this.owner === entry) this.owner = undefined;
    this.pump();
  }

  private pump(): void {
    if (this.running !== undefined || this.restarting || this.stopped) return;
    if (this.owner !== undefined) {
      if (this.owner.messages.length > 0) return void this.runOwner(this.owner);
      this.armIdle(this.owner);
      return;
    }
    const nextEntry = this.queue.shift();
    if (nextEntry === undefined) return;
    this.owner = nextEntry;
    void this.runOwner(nextEntry);
  }

  private armIdle(entry: Waiting): void {
    if (this.idleTimer !== undefined || this.idleInTransactionMs <= 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.owner !== entry || this.running !== undefined || entry.messages.length > 0) return;
      const seconds = Math.round(this.idleInTransactionMs / 100) / 10;
      this.onProblem(`client ${entry.client.id} idle in a transaction for ${seconds} s: rolled back and disconnected`);
      entry.client.fatal(
        '25P03',
        `terminating connection due to idle-in-transaction timeout (${seconds} s; serve --idle-in-transaction-timeout): the session is shared, so others were waiting; the transaction was rolled back`,
      );
      this.remove(entry.client.id);
    }, this.idleInTransactionMs);
    this.idleTimer.unref();
  }

  private async runOwner(entry: Waiting): Promise<void> {
    this.running = entry;
    try {
      if (this.lastOwner !== entry.client.id) {
        const live = [...this.clients.values()].map((w) => w.client.prefix);
        await this.engine.reset(live, entry.client.settings);
        this.lastOwner = entry.client.id;
      }
      const batch = Buffer.concat(entry.messages.splice(0));
      const answer = await this.engine.raw(batch);
      if (this.clients.get(entry.client.id) === entry) entry.client.send(answer);
      const last = lastMessage(answer);
      // Idle again: the session is free for the next client. Anything else (a transaction, a batch
      // without its Sync yet) keeps it.
      if (last?.type === 'Z' && last.status === 'I' && this.owner === entry) this.owner = undefined;
    } catch (e) {
      if (e instanceof EngineStoppedError) {
        if (this.clients.get(entry.client.id) === entry && !this.stopped) {
          entry.client.send(Buffer.concat([errorResponse('ERROR', CANCELED, `canceling statement due to user request (${e.message})`), readyForQuery('I')]));
        }
        // restartEngine releases the session once PGlite is back.
        if (this.running === entry) this.running = undefined;
        return;
      }
      this.onProblem(`PGlite failed on a message of client ${entry.client.id}: ${e instanceof Error ? e.message : String(e)}`);
      entry.client.fatal('XX000', 'efa-sync serve: the embedded database failed on this message; the connection is closed');
      if (this.running === entry) this.running = undefined;
      this.remove(entry.client.id);
      return;
    }
    if (this.running === entry) this.running = undefined;
    if (this.owner === entry && !this.clients.has(entry.client.id)) await this.rollbackOwner();
    else this.pump();
  }
}

/** A simple-query message. */
export function simpleQuery(sql: string): Buffer {
  const body = Buffer.concat([Buffer.from(sql, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('Q', 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
