import { parentPort } from 'node:worker_threads';
import { checkStatement, loadGuard, type GuardVerdict } from './guard.js';

/**
 * The statement check on a thread of its own (guard-pool.ts): PostgreSQL's parser in WebAssembly
 * may take long on a hostile statement, run out of its stack, or be left broken by that and spin;
 * here it stalls no login and no other client, and its owner can end it (Worker.terminate).
 */

export interface GuardRequest {
  readonly id: number;
  readonly sql: string;
  readonly write: boolean;
}

export type GuardReply = { readonly ready: true } | { readonly id: number; readonly verdict: GuardVerdict };

const port = parentPort;
if (port === null) throw new Error('guard-worker.ts runs as a worker thread (guard-pool.ts starts it)');
await loadGuard();
port.on('message', (request: GuardRequest) => {
  port.postMessage({ id: request.id, verdict: checkStatement(request.sql, request.write) } satisfies GuardReply);
});
port.postMessage({ ready: true } satisfies GuardReply);
