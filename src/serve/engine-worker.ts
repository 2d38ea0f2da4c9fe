import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pgliteEngine } from '../db/pglite-engine.js';
import { identifier, literal } from './protocol.js';
import { enterServeRole } from './role.js';

/**
 * PGlite for `serve`, in a worker thread. PGlite runs its WebAssembly on the thread that calls it
 * and cannot interrupt a statement (statement_timeout does not fire: a 30-million-row count ran
 * 33 s with a 200 ms timeout); on its own thread the proxy stays responsive to every other client
 * and to signals, and a cancel request or SIGTERM can end a statement by terminating this worker.
 */

export interface EngineWorkerData {
  readonly dataDir: string;
  readonly write: boolean;
}

export type EngineRequest =
  | { readonly id: number; readonly op: 'raw'; readonly bytes: Uint8Array }
  | { readonly id: number; readonly op: 'reset'; readonly livePrefixes: readonly string[]; readonly settings: readonly (readonly [string, string])[] }
  | { readonly id: number; readonly op: 'close' };

export interface EngineReply {
  readonly id: number;
  readonly bytes?: Uint8Array;
  readonly error?: string;
  /** Sent once, when PGlite is open. */
  readonly ready?: true;
}

const { dataDir, write } = workerData as EngineWorkerData;
const port = parentPort;
if (port === null) throw new Error('engine-worker runs as a worker thread');

const db = await PGlite.create({ dataDir, ...(await pgliteEngine()) });
await enterServeRole(db, write);
if (!write) await db.exec('SET default_transaction_read_only = on');

/**
 * Hands the one session to another client: what the previous one left (settings, SQL-level
 * PREPAREs, cursors, LISTENs, advisory locks) is gone, then the new client's startup settings and
 * the read-only default are applied. Protocol-level prepared statements carry the name prefix of the
 * client that made them (the proxy adds it), so those of clients still connected are kept.
 */
async function reset(livePrefixes: readonly string[], settings: readonly (readonly [string, string])[]): Promise<void> {
  await db.exec('RESET ALL; CLOSE ALL; UNLISTEN *');
  await db.query('SELECT pg_advisory_unlock_all()');
  const prepared = await db.query<{ name: string; from_sql: boolean }>('SELECT name, from_sql FROM pg_prepared_statements');
  const stale = prepared.rows.filter((row) => row.from_sql || !livePrefixes.some((prefix) => row.name.startsWith(prefix)));
  for (const row of stale) await db.exec(`DEALLOCATE ${identifier(row.name)}`);
  if (!write) await db.exec('SET default_transaction_read_only = on');
  for (const [name, value] of settings) {
    // A value PostgreSQL refuses (DateStyle 'nonsense') is left at its default, as the client sees in ParameterStatus.
    await db.exec(`SET ${identifier(name)} = ${literal(value)}`).catch(() => undefined);
  }
}

port.on('message', (request: EngineRequest) => {
  const answer = async (): Promise<EngineReply> => {
    if (request.op === 'raw') return { id: request.id, bytes: await db.execProtocolRaw(request.bytes) };
    if (request.op === 'reset') {
      await reset(request.livePrefixes, request.settings);
      return { id: request.id };
    }
    await db.close();
    return { id: request.id };
  };
  void answer().then(
    (reply) => port.postMessage(reply),
    (e: unknown) => port.postMessage({ id: request.id, error: e instanceof Error ? e.message : String(e) } satisfies EngineReply),
  );
});
port.postMessage({ id: 0, ready: true } satisfies EngineReply);
