import { EngineEscapedError, EngineStoppedError, OWN_CALL_DEADLINE_MS, type Engine } from './engine.js';
import { discardAll } from './discard-all.js';
import { IdleAllowance } from './idle-allowance.js';
import { cstring, errorResponse, lastMessage, message, readyForQuery, takeUnit } from './protocol.js';
import { failUnit, skipToSync, type SessionClient, type Waiting } from './session-client.js';

export type { SessionClient } from './session-client.js';

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
 * - a cancel request ends the client's first waiting statement (a Query, or a batch up to its
 *   Sync), or its running statement by restarting PGlite (its transaction is then gone); a client
 *   that disconnects is treated the same way;
 * - each client gets exactly one ReadyForQuery per Query and per Sync, whatever ends its statement:
 *   its messages run one unit (up to a Query or Sync) at a time, and a unit ended by a restart is
 *   answered with its error, the rest of its batch skipped to the Sync as PostgreSQL does;
 * - when PGlite's memory has grown past `maxEngineMemory`, it is opened again as soon as nobody is
 *   inside a transaction (WebAssembly memory is never given back otherwise).
 */

export interface SessionLimits {
  /** An owner idle inside a transaction this long is rolled back and disconnected; 0 = never. */
  readonly idleInTransactionMs: number;
  /** A client's message that runs longer is ended (PGlite restarted); 0 = never. */
  readonly statementTimeoutMs?: number;
  /** PGlite's WebAssembly memory above which it is opened again once idle, in bytes; 0 = never. */
  readonly maxEngineMemory?: number;
}

const CANCELED = '57014';
/** How long a disconnected client's running statement may go on before PGlite is restarted to end it. */
const DISCONNECT_GRACE_MS = 2_000;
const QUERY = 0x51;
const SYNC = 0x53;

export class SessionScheduler {
  private readonly clients = new Map<number, Waiting>();
  private readonly queue: Waiting[] = [];
  private owner: Waiting | undefined;
  /** The client the session's state belongs to: a reset is due when another takes it. */
  private lastOwner: number | undefined;
  private running: Waiting | undefined;
  /** PGlite is being opened again after a cancel: nothing runs until it is back. */
  private restarting = false;
  private readonly idle: IdleAllowance;
  private stopped = false;
  /** PGlite's memory is over the bound: it is opened again at the next moment nobody owns the session. */
  private renewDue = false;
  private readonly statementTimeoutMs: number;
  private readonly maxEngineMemory: number;
  /** What the running client is told when PGlite is restarted under its statement. */
  private endedBecause: { readonly code: string; readonly text: string } | undefined;
  /** The transaction status of the session's last ReadyForQuery ('I' after a restart or a hand-over). */
  private status = 'I';

  constructor(
    private readonly engine: Engine,
    limits: SessionLimits,
    private readonly onProblem: (what: string) => void,
  ) {
    this.idle = new IdleAllowance(limits.idleInTransactionMs);
    this.statementTimeoutMs = limits.statementTimeoutMs ?? 0;
    this.maxEngineMemory = limits.maxEngineMemory ?? 0;
  }

  add(client: SessionClient): void {
    this.clients.set(client.id, { client, messages: [], skipping: false, idleWaitedMs: 0 });
  }

  /** Queues one checked frontend message of `client`. */
  submit(client: SessionClient, bytes: Buffer): void {
    const entry = this.clients.get(client.id);
    if (entry === undefined || this.stopped) return;
    entry.messages.push(bytes);
    if (entry.skipping) skipToSync(entry);
    if (entry.messages.length === 0) return;
    if (entry === this.owner) this.clearIdle();
    else if (!this.queue.includes(entry)) {
      // Idle time before it came is not charged to it; the owner's allowance now counts it.
      this.idle.charge(this.queue);
      this.queue.push(entry);
      if (this.idle.armed && this.owner !== undefined) {
        this.clearIdle();
        this.armIdle(this.owner);
      }
    }
    this.pump();
  }

  /** True while the session works for `id`: it owns it (a statement, a transaction) or has messages waiting. */
  isBusy(id: number): boolean {
    const entry = this.clients.get(id);
    return entry !== undefined && (entry === this.owner || entry.messages.length > 0);
  }

  /** Bytes of `id`'s messages waiting to run. */
  queuedBytes(id: number): number {
    return this.clients.get(id)?.messages.reduce((sum, m) => sum + m.length, 0) ?? 0;
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

  /**
   * A cancel for a client whose statement waits for the session: that statement (its first Query, or
   * its batch up to the Sync) is answered "canceling statement", as PostgreSQL ends the statement a
   * cancel finds running; what it pipelined after runs in its turn. The owner between statements has
   * nothing running: PostgreSQL ignores such a cancel, and so does serve.
   */
  private answerCanceled(entry: Waiting): void {
    if (entry === this.owner || entry.messages.length === 0) return;
    failUnit(entry, takeUnit(entry.messages), { code: CANCELED, text: 'canceling statement due to user request' });
    if (entry.messages.length === 0) {
      const at = this.queue.indexOf(entry);
      if (at >= 0) this.queue.splice(at, 1);
    }
    entry.client.dequeued?.();
  }

  private clearIdle(): void {
    this.idle.clear(this.queue);
  }

  /**
   * The watchdog of the owner's next message: the smaller of the client's own statement_timeout (the
   * session's, read after its last message; PGlite never fires it) and --statement-timeout; 0 = none.
   */
  private timeoutFor(): { readonly ms: number; readonly clients: boolean } {
    const own = this.engine.clientStatementTimeoutMs;
    if (own > 0 && (this.statementTimeoutMs === 0 || own < this.statementTimeoutMs)) return { ms: own, clients: true };
    return { ms: this.statementTimeoutMs, clients: false };
  }

  /** The running client's statement ran past its statement_timeout or --statement-timeout: it is ended by restarting PGlite. */
  private timeOut(entry: Waiting, limit: { readonly ms: number; readonly clients: boolean }): void {
    if (this.running !== entry) return;
    const seconds = Math.round(limit.ms / 100) / 10;
    // The client's own setting is answered in PostgreSQL's words; serve's bound says where it comes from.
    this.endedBecause = { code: CANCELED, text: `canceling statement due to statement timeout${limit.clients ? '' : ` (${seconds} s; serve --statement-timeout)`}` };
    this.onProblem(`client ${entry.client.id} (${entry.client.remote}): statement timeout after ${seconds} s${limit.clients ? ' (its own statement_timeout)' : ''}`);
    void this.restartEngine(`the statement timeout of client ${entry.client.id}`);
  }

  /** PGlite answered a Query or Sync without ReadyForQuery: it will not be idle again, so it is restarted. */
  private wedged(entry: Waiting, bytes: number): void {
    this.onProblem(`client ${entry.client.id} (${entry.client.remote}): the embedded database gave no ReadyForQuery (${bytes} bytes of answer)`);
    if (this.clients.get(entry.client.id) === entry) {
      entry.client.send(Buffer.concat([errorResponse('ERROR', 'XX000', 'efa-sync serve: the embedded database failed on this statement and is restarted; your session state is gone'), readyForQuery('I')]));
    }
    // What it pipelined after runs in the new session (restartEngine queues it first).
    void this.restartEngine(`no ReadyForQuery for client ${entry.client.id}`);
  }

  private async restartEngine(why: string, renew = false): Promise<void> {
    const entry = this.running;
    if (this.restarting) return;
    this.restarting = true;
    this.renewDue = false;
    this.onProblem(renew ? `opening PGlite again (${why})` : `ending the running statement (${why}): PGlite restarts`);
    try {
      if (renew) await this.engine.renew(this.lastOwner === undefined ? undefined : this.clients.get(this.lastOwner)?.client.prefix, why);
      else await this.engine.restart(why);
    } catch (e) {
      this.onProblem(`PGlite did not restart: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.restarting = false;
    this.endedBecause = undefined;
    this.status = 'I';
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
    let hung = false;
    try {
      // A Sync ends a batch left open; ROLLBACK ends the transaction (a warning when there is none).
      await this.engine.raw(Buffer.concat([Buffer.from([0x53, 0, 0, 0, 4]), simpleQuery('ROLLBACK')]), OWN_CALL_DEADLINE_MS);
    } catch (e) {
      // The engine restarted or stopped: the transaction is gone either way. One that did not answer is restarted.
      hung = e instanceof EngineStoppedError && e.name === 'EngineHungError';
    }
    if (this.running === entry) this.running = undefined;
    if (this.owner === entry) this.owner = undefined;
    this.status = 'I';
    if (hung) return void this.restartEngine(`the rollback of a departed client did not answer within ${OWN_CALL_DEADLINE_MS / 1000} s`);
    this.pump();
  }

  private pump(): void {
    if (this.running !== undefined || this.restarting || this.stopped) return;
    if (this.owner !== undefined) {
      if (this.owner.messages.length > 0) return void this.runOwner(this.owner);
      this.armIdle(this.owner);
      return;
    }
    if (this.renewDue) return void this.restartEngine(`its memory grew past ${Math.round(this.maxEngineMemory / 2 ** 20)} MB (serve --max-engine-memory)`, true);
    const nextEntry = this.queue.shift();
    if (nextEntry === undefined) return;
    this.owner = nextEntry;
    nextEntry.idleWaitedMs = 0;
    void this.runOwner(nextEntry);
  }

  /** The owner is idle inside a transaction: past its allowance (idle-allowance.ts) it is rolled back and disconnected. */
  private armIdle(entry: Waiting): void {
    this.idle.arm(this.queue, (allowance) => {
      if (this.owner !== entry || this.running !== undefined || entry.messages.length > 0) return;
      const seconds = Math.round(allowance / 100) / 10;
      const others = this.queue.length === 0 ? '' : ` while ${this.queue.length} other client(s) waited`;
      this.onProblem(`client ${entry.client.id} idle in a transaction for ${seconds} s${others}: rolled back and disconnected`);
      entry.client.fatal(
        '25P03',
        `terminating connection due to idle-in-transaction timeout (${seconds} s${others}; serve --idle-in-transaction-timeout): the session is shared; the transaction was rolled back`,
      );
      this.remove(entry.client.id);
    });
  }

  private async runOwner(entry: Waiting): Promise<void> {
    this.running = entry;
    if (this.lastOwner !== entry.client.id) {
      const live = [...this.clients.values()].map((w) => w.client.prefix);
      const outgoing = this.lastOwner === undefined ? undefined : this.clients.get(this.lastOwner)?.client.prefix;
      try {
        await this.engine.reset({ ...(outgoing === undefined ? {} : { outgoing }), incoming: entry.client.prefix, livePrefixes: live, settings: entry.client.settings });
        this.lastOwner = entry.client.id;
        this.status = 'I';
      } catch (e) {
        // Nothing of the client's ran: its messages wait for the new session (restartEngine queues them first).
        this.onProblem(`the reset before client ${entry.client.id}'s turn failed (${e instanceof Error ? e.message : String(e)}): PGlite restarts`);
        return void this.restartEngine('a reset between clients that failed or did not answer');
      }
    }
    // One unit (up to a Query or Sync) at a time: what a restart ends is then exactly one statement.
    const unit = takeUnit(entry.messages);
    entry.client.dequeued?.();
    const ends = unit[unit.length - 1]?.[0] === QUERY || unit[unit.length - 1]?.[0] === SYNC;
    let timer: NodeJS.Timeout | undefined;
    try {
      const limit = this.timeoutFor();
      if (limit.ms > 0) timer = setTimeout(() => this.timeOut(entry, limit), limit.ms);
      const joined = unit.length === 1 ? (unit[0] as Buffer) : Buffer.concat(unit);
      const discard = discardAll(joined, this.status);
      const ran = await this.engine.raw(discard?.run ?? joined);
      clearTimeout(timer);
      const answer = discard === undefined ? ran : discard.answer(ran);
      const last = lastMessage(answer);
      if (last?.status !== undefined) this.status = last.status;
      if (ends && last?.type !== 'Z') return this.wedged(entry, answer.length);
      if (this.clients.get(entry.client.id) === entry) entry.client.send(answer);
      if (this.maxEngineMemory > 0 && this.engine.memory > this.maxEngineMemory) this.renewDue = true;
      // Idle again: the session is free for the next client. Anything else (a transaction, a batch
      // without its Sync yet) keeps it. What the client pipelined meanwhile waits its turn in the queue.
      if (last?.type === 'Z' && last.status === 'I' && this.owner === entry) {
        this.owner = undefined;
        if (entry.messages.length > 0 && this.clients.get(entry.client.id) === entry) this.queue.push(entry);
      }
    } catch (e) {
      clearTimeout(timer);
      if (e instanceof EngineStoppedError) {
        if (this.clients.get(entry.client.id) === entry && !this.stopped) failUnit(entry, unit, this.endedBecause ?? { code: CANCELED, text: `canceling statement due to user request (${e.message})` });
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

/** A simple-query message. */
export const simpleQuery = (sql: string): Buffer => message('Q', cstring(sql));
