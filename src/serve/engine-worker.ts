import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pgliteEngine } from '../db/pglite-engine.js';
import { cstring, int32, message, postgresAnswer } from './protocol.js';
import { startupSet } from './startup.js';
import { ClientIdentity, prepareServeRoles, SERVE_ROLE, SERVE_WRITE_ROLE } from './role.js';

/**
 * PGlite for `serve`, in a worker thread. PGlite runs its WebAssembly on the thread that calls it
 * and cannot interrupt a statement (statement_timeout does not fire: a 30-million-row count ran
 * 33 s with a 200 ms timeout); on its own thread the proxy stays responsive to every other client
 * and to signals, and a cancel, a timeout or SIGTERM can end a statement by terminating this worker.
 *
 * Clients' messages run as the client role, locked (role.ts); the privileged path (the roles'
 * setup, the reset between clients) runs here, between messages, and no client message reaches it.
 */

export interface EngineWorkerData {
  readonly dataDir: string;
  readonly write: boolean;
  /** False when reopening after a restart: the roles and grants are in the database already (a restart is seconds others wait). */
  readonly prepareRoles?: boolean;
  /** PostgreSQL's temp_file_limit for the session, in kB (a sort or hash that spills more is ended with an error). */
  readonly tempFileLimitKb?: number;
  /** Clients' protocol-level statements carried over from the worker before (a planned restart). */
  readonly kept?: readonly (readonly [string, readonly Kept[]])[];
}

export interface ResetRequest {
  /** The prefix of the client whose protocol-level statements are kept for its next turn (the last owner), if it is still connected. */
  readonly outgoing?: string;
  /** The client taking the session: its kept statements are prepared again. */
  readonly incoming: string;
  /** Prefixes of the connected clients: what others kept is dropped. */
  readonly livePrefixes: readonly string[];
  /** The incoming client's startup settings (an allow-list, wire.ts), applied as the client role. */
  readonly settings: readonly (readonly [string, string])[];
}

export type EngineRequest =
  | { readonly id: number; readonly op: 'raw'; readonly bytes: Uint8Array }
  | ({ readonly id: number; readonly op: 'reset' } & ResetRequest)
  | { readonly id: number; readonly op: 'keep'; readonly outgoing?: string }
  | { readonly id: number; readonly op: 'close' };

export interface EngineReply {
  readonly id: number;
  readonly bytes?: Uint8Array;
  readonly error?: string;
  /** The session's user was not the client role after a client message: the engine must be restarted. */
  readonly escaped?: true;
  /** Sent once, when PGlite is open. */
  readonly ready?: true;
  /** PGlite's WebAssembly memory after the request, in bytes: it only grows, so serve restarts the engine to give it back. */
  readonly memory?: number;
  /** The session's statement_timeout in ms (0: none) after the request: PGlite never fires it, serve's watchdog honours it (session.ts). */
  readonly statementTimeoutMs?: number;
  /** The answer to 'keep': every client's kept statements. */
  readonly kept?: readonly (readonly [string, readonly Kept[]])[];
}

export interface Kept {
  readonly name: string;
  readonly statement: string;
  readonly types: readonly number[];
}

const { dataDir, write, prepareRoles = true, tempFileLimitKb = 1024 * 1024, kept: carried = [] } = workerData as EngineWorkerData;
const port = parentPort;
if (port === null) throw new Error('engine-worker runs as a worker thread');

/**
 * PostgreSQL's timeouts reach PGlite as SIGALRM through Emscripten's setitimer, a JavaScript timer of
 * this thread; it can only fire between two calls (a call runs to its end on this thread), so the only
 * ones that ever fire are the idle ones (idle_session_timeout, idle_in_transaction_session_timeout),
 * and PGlite then spins forever at its next call ("terminating connection", which it cannot do): one
 * client's SET hung serve for everyone. Those alarms are not delivered; serve bounds idleness itself
 * (session.ts), and a call that does not answer still restarts PGlite (engine.ts).
 */
function withholdEngineAlarms(): void {
  const schedule = globalThis.setTimeout;
  const withheld = ((callback: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
    if (typeof callback === 'function' && Function.prototype.toString.call(callback).includes('_emscripten_timeout')) return schedule(() => undefined, 0);
    return schedule(callback, ms, ...rest);
  }) as typeof setTimeout;
  globalThis.setTimeout = withheld;
}
withholdEngineAlarms();

// A statement ended by terminating this worker (cancel, timeout) leaves its spill files: PostgreSQL
// removes them only at a server start, which PGlite does not do for this directory.
rmSync(join(dataDir, 'base', 'pgsql_tmp'), { recursive: true, force: true });
const engine = await pgliteEngine();
const db = await PGlite.create({ dataDir, ...engine, startParams: [...engine.startParams, '-c', `temp_file_limit=${tempFileLimitKb}`] });
if (prepareRoles) await prepareServeRoles(db);
const identity = new ClientIdentity(db, write ? SERVE_WRITE_ROLE : SERVE_ROLE);
await identity.enter(!write);
/** Each connected client's protocol-level prepared statements, while another client has the session. */
const kept = new Map<string, readonly Kept[]>(carried);

/**
 * Hands the session to another client as a fresh one: DISCARD ALL (settings, the session's
 * authorization, prepared statements, portals and cursors WITH HOLD included, temporary objects,
 * LISTEN, advisory locks, cached plans) runs on the privileged path, since the lock refuses it to
 * the client role. The outgoing client's protocol-level statements are kept aside and prepared again
 * on its next turn, so no client ever sees another's in pg_prepared_statements.
 */
/** Sets aside the protocol-level statements of the client with `prefix` (the caller is privileged). */
async function keepAside(prefix: string): Promise<void> {
  const rows = await db.query<{ name: string; statement: string; types: string }>(
    `SELECT name, statement, coalesce(array_to_string(parameter_types::oid[], ','), '') AS types
       FROM pg_prepared_statements WHERE NOT from_sql AND left(name, length($1)) = $1`,
    [prefix],
  );
  kept.set(prefix, rows.rows.map((row) => ({ name: row.name, statement: row.statement, types: row.types === '' ? [] : row.types.split(',').map(Number) })));
}

async function reset(request: ResetRequest): Promise<void> {
  // An extended-protocol batch left without its Sync, then a transaction left open, end as the client.
  await db.execProtocolRaw(message('S', Buffer.alloc(0)));
  if (db.isInTransaction()) await db.exec('ROLLBACK');
  await identity.privileged(!write, async () => {
    if (request.outgoing !== undefined) await keepAside(request.outgoing);
    for (const prefix of kept.keys()) if (!request.livePrefixes.includes(prefix)) kept.delete(prefix);
    await db.exec('DISCARD ALL');
  });
  for (const [name, value] of request.settings) {
    // As the client role. A value PostgreSQL refuses (DateStyle 'nonsense') is left at its default.
    await db.exec(startupSet(name, value)).catch(() => undefined);
  }
  const statements = kept.get(request.incoming) ?? [];
  kept.delete(request.incoming);
  if (statements.length > 0) {
    const parses = statements.map((s) => message('P', Buffer.concat([cstring(s.name), cstring(s.statement), Buffer.from([s.types.length >> 8, s.types.length & 0xff]), ...s.types.map(int32)])));
    identity.lock();
    await db.execProtocolRaw(Buffer.concat([...parses, message('S', Buffer.alloc(0))]));
  }
  identity.lock();
}

port.on('message', (request: EngineRequest) => {
  const answer = async (): Promise<EngineReply> => {
    if (request.op === 'raw') {
      identity.lock();
      const bytes = await postgresAnswer(request.bytes, (unit) => db.execProtocolRaw(unit));
      const memory = db.Module.HEAPU8.byteLength;
      // Never expected: the lock holds by PostgreSQL's rules. Should it not, the session is not handed on.
      if (!identity.isClient) return { id: request.id, bytes, escaped: true, memory };
      return { id: request.id, bytes, memory, statementTimeoutMs: identity.statementTimeoutMs };
    }
    if (request.op === 'reset') {
      await reset(request);
      // The incoming client's, from its startup settings (options=-c statement_timeout=…).
      return { id: request.id, statementTimeoutMs: identity.statementTimeoutMs };
    }
    if (request.op === 'keep') {
      // Only ever between transactions (session.ts): nothing is open to end.
      const outgoing = request.outgoing;
      if (outgoing !== undefined) await identity.privileged(!write, () => keepAside(outgoing));
      identity.lock();
      return { id: request.id, kept: [...kept] };
    }
    await db.close();
    return { id: request.id };
  };
  void answer().then(
    (reply) => port.postMessage(reply, reply.bytes !== undefined ? [reply.bytes.buffer as ArrayBuffer] : []),
    (e: unknown) => port.postMessage({ id: request.id, error: e instanceof Error ? e.message : String(e) } satisfies EngineReply),
  );
});
port.postMessage({ id: 0, ready: true, memory: db.Module.HEAPU8.byteLength, statementTimeoutMs: identity.statementTimeoutMs } satisfies EngineReply);
