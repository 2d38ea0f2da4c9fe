import { EngineEscapedError, EngineStoppedError, type Engine } from './engine.js';
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
  /** The client's address, for the log. */
  readonly remote: string;
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
  /** What the running client is told when PGlite is restarted under its statement. */
  private endedBecause: { readonly code: string; readonly text: string } | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly idleInTransactionMs: number,
    private readonly onProblem: (what: string) => void,
    /** A client's message that runs longer is ended (PGlite restarted); 0 = never. */
    private readonly statementTimeoutMs = 0,
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
      this.onProblem(`cancel request from ${entry.client.remote} (client ${id})`);
      this.endedBecause = { code: CANCELED, text: 'canceling statement due to user request' };
      void this.restartEngine(`a cancel request of client ${id}`);
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

  /** The running client's statement ran past --statement-timeout: it is ended by restarting PGlite. */
  private timeOut(entry: Waiting): void {
    if (this.running !== entry) return;
    const seconds = Math.round(this.statementTimeoutMs / 100) / 10;
    this.endedBecause = { code: CANCELED, text: `canceling statement due to statement timeout (${seconds} s; serve --statement-timeout)` };
    this.onProblem(`client ${entry.client.id} (${entry.client.remote}): statement timeout after ${seconds} s`);
    void this.restartEngine(`the statement timeout of client ${entry.client.id}`);
  }

  /** PGlite answered a Query or Sync without ReadyForQuery: it will not be idle again, so it is restarted. */
  private wedged(entry: Waiting, bytes: number): void {
    this.onProblem(`client ${entry.client.id} (${entry.client.remote}): the embedded database gave no ReadyForQuery (${bytes} bytes of answer)`);
    if (this.clients.get(entry.client.id) === entry) {
      entry.client.send(Buffer.concat([errorResponse('ERROR', 'XX000', 'efa-sync serve: the embedded database failed on this statement and is restarted; your session state is gone'), readyForQuery('I')]));
    }
    entry.messages.length = 0;
    void this.restartEngine(`no ReadyForQuery for client ${entry.client.id}`);
  }

  private async restartEngine(why: string): Promise<void> {
    const entry = this.running;
    if (this.restarting) return;
    this.restarting = true;
    this.onProblem(`ending the running statement (${why}): PGlite restarts`);
    try {
      await this.engine.restart(why);
    } catch (e) {
      this.onProblem(`PGlite did not restart: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.restarting = false;
    this.endedBecause = undefined;
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
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.lastOwner !== entry.client.id) {
        const live = [...this.clients.values()].map((w) => w.client.prefix);
        const outgoing = this.lastOwner === undefined ? undefined : this.clients.get(this.lastOwner)?.client.prefix;
        await this.engine.reset({ ...(outgoing === undefined ? {} : { outgoing }), incoming: entry.client.prefix, livePrefixes: live, settings: entry.client.settings });
        this.lastOwner = entry.client.id;
      }
      const batch = Buffer.concat(entry.messages.splice(0));
      if (this.statementTimeoutMs > 0) timer = setTimeout(() => this.timeOut(entry), this.statementTimeoutMs);
      const answer = await this.engine.raw(batch);
      clearTimeout(timer);
      if (expectsReady(batch) && !hasReady(answer)) return this.wedged(entry, answer.length);
      if (this.clients.get(entry.client.id) === entry) entry.client.send(answer);
      const last = lastMessage(answer);
      // Idle again: the session is free for the next client. Anything else (a transaction, a batch
      // without its Sync yet) keeps it. What the client pipelined meanwhile waits its turn in the queue.
      if (last?.type === 'Z' && last.status === 'I' && this.owner === entry) {
        this.owner = undefined;
        if (entry.messages.length > 0 && this.clients.get(entry.client.id) === entry) this.queue.push(entry);
      }
    } catch (e) {
      clearTimeout(timer);
      if (e instanceof EngineStoppedError) {
        const why = this.endedBecause ?? { code: CANCELED, text: `canceling statement due to user request (${e.message})` };
        if (this.clients.get(entry.client.id) === entry && !this.stopped) entry.client.send(Buffer.concat([errorResponse('ERROR', why.code, why.text), readyForQuery('I')]));
        // restartEngine releases the session once PGlite is back.
        if (this.running === entry) this.running = undefined;
        return;
      }
      if (e instanceof EngineEscapedError) {
        this.onProblem(`client ${entry.client.id} (${entry.client.remote}): ${e.message}; its answer is withheld and PGlite restarts`);
        entry.client.fatal('42501', 'efa-sync serve: the session changed its role; the connection is closed');
        this.remove(entry.client.id);
        return void this.restartEngine('a session that changed its role');
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

/** True when a batch holds a Query or a Sync: PostgreSQL then ends its answer with ReadyForQuery. */
function expectsReady(batch: Buffer): boolean {
  return typesOf(batch).some((t) => t === 0x51 || t === 0x53);
}

function hasReady(answer: Buffer): boolean {
  return typesOf(answer).includes(0x5a);
}

/** The message types of a buffer of whole protocol messages. */
function typesOf(bytes: Buffer): number[] {
  const types: number[] = [];
  for (let at = 0; at + 5 <= bytes.length; ) {
    const length = bytes.readInt32BE(at + 1);
    if (length < 4) break;
    types.push(bytes[at] ?? 0);
    at += 1 + length;
  }
  return types;
}

/** A simple-query message. */
export function simpleQuery(sql: string): Buffer {
  const body = Buffer.concat([Buffer.from(sql, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('Q', 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
