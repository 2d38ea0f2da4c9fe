import { errorResponse, readyForQuery } from './protocol.js';

/** One client of the shared session, as the scheduler (session.ts) sees it. */
export interface SessionClient {
  readonly id: number;
  /** Prefix of this client's protocol-level statement names (frontend.ts). */
  readonly prefix: string;
  /** The client's address, for the log. */
  readonly remote: string;
  /** Startup settings (DateStyle, TimeZone, …) applied whenever the session passes to this client. */
  readonly settings: readonly (readonly [string, string])[];
  send(bytes: Buffer): void;
  /** Ends the client's connection with a FATAL error. */
  fatal(code: string, text: string): void;
  /** Told when queued messages were taken (run or answered): the client may be read again (wire.ts bounds queued input). */
  dequeued?(): void;
}

export interface Waiting {
  readonly client: SessionClient;
  readonly messages: Buffer[];
  /** A batch of this client's was ended before its Sync (cancel, restart): its messages are dropped up to the Sync, which answers ReadyForQuery. */
  skipping: boolean;
  /** How long this client, waiting, has waited on owners idle inside a transaction. */
  idleWaitedMs: number;
}

const QUERY = 0x51;
const SYNC = 0x53;

/**
 * Answers a unit (messages up to a Query or Sync) that was not run, or was ended by a restart, as
 * PostgreSQL answers a statement that failed: its error, then ReadyForQuery at its Query or Sync, or
 * the client's next messages skipped up to the Sync, which answers it.
 */
export function failUnit(entry: Waiting, unit: readonly Buffer[], why: { readonly code: string; readonly text: string }): void {
  const last = unit[unit.length - 1]?.[0];
  const ends = last === QUERY || last === SYNC;
  entry.client.send(Buffer.concat([errorResponse('ERROR', why.code, why.text), ...(ends ? [readyForQuery('I')] : [])]));
  if (!ends) {
    entry.skipping = true;
    skipToSync(entry);
  }
}

/** Drops the messages of a batch that failed up to its Sync, and answers the Sync (PostgreSQL's "ignore till Sync"). */
export function skipToSync(entry: Waiting): void {
  const sync = entry.messages.findIndex((m) => m[0] === SYNC);
  entry.messages.splice(0, sync < 0 ? entry.messages.length : sync + 1);
  if (sync < 0) return;
  entry.skipping = false;
  entry.client.send(readyForQuery('I'));
}
