import type { GuardVerdict } from './guard.js';
import { cstring, literal, message, readCString } from './protocol.js';

/**
 * What the proxy does with one frontend message of an authenticated client before PGlite sees it.
 * Only the message types below reach PGlite, each checked field by field: PGlite spins forever on a
 * message type it does not know ('z', '\0' wedged the whole server), and a malformed message must be
 * refused here rather than discovered there.
 */

/** Passed on to PGlite once checked. */
const RELAYED = new Set(['Q', 'P', 'B', 'E', 'D', 'C', 'S', 'H']);
/** CopyData/CopyDone/CopyFail: PostgreSQL ignores them outside COPY FROM STDIN, which the guard refuses. */
const IGNORED = new Set(['d', 'c', 'f']);

export type FrontendVerdict =
  | { readonly kind: 'relay'; readonly bytes: Buffer }
  | { readonly kind: 'ignore' }
  | { readonly kind: 'terminate' }
  | { readonly kind: 'fatal'; readonly code: string; readonly text: string };

/** The statement a refused one is replaced by: `efa_serve.refuse` raises the reason (SQLSTATE 42501, or the verdict's code). */
function refusalSql(reason: string, parameters: number, code: string | undefined): string {
  const call = `SELECT efa_serve.refuse(${literal(reason)}${code === undefined ? '' : `, ${literal(code)}`})`;
  if (parameters === 0) return call;
  const columns = Array.from({ length: parameters }, (_, i) => `$${i + 1}::text`).join(', ');
  return `${call} FROM (SELECT ${columns}) AS ignored`;
}

/** Reads C strings and integers of one message body, remembering whether it ran past the end. */
class BodyReader {
  at = 0;
  bad = false;
  constructor(readonly body: Buffer) {}
  string(): string {
    const r = readCString(this.body, this.at);
    if (r === undefined) {
      this.bad = true;
      return '';
    }
    this.at = r[1];
    return r[0];
  }
  int16(): number {
    if (this.at + 2 > this.body.length) return ((this.bad = true), 0);
    const v = this.body.readInt16BE(this.at);
    this.at += 2;
    return v;
  }
  int32(): number {
    if (this.at + 4 > this.body.length) return ((this.bad = true), 0);
    const v = this.body.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  skip(n: number): void {
    if (n < 0 || this.at + n > this.body.length) this.bad = true;
    else this.at += n;
  }
  /** True when every byte was read and nothing ran short. */
  get complete(): boolean {
    return !this.bad && this.at === this.body.length;
  }
}

/** `then` applied at once to a verdict that is already there (the check off), later to one that is not. */
const after = (verdict: GuardVerdict | Promise<GuardVerdict>, then: (v: GuardVerdict) => FrontendVerdict): FrontendVerdict | Promise<FrontendVerdict> =>
  verdict instanceof Promise ? verdict.then(then) : then(verdict);

const malformed = (type: string): FrontendVerdict => ({ kind: 'fatal', code: '08P01', text: `efa-sync serve: malformed "${type}" message` });

/**
 * A client's statement name in the shared session: its own prefix, so clients never share names
 * (a client's prepared statements live on between its turns, engine-worker.ts). Portal names are
 * passed as they came: a portal ends with its transaction (a cursor WITH HOLD lives on, until the
 * DISCARD ALL at the next hand-over), and the session changes hands only between transactions, so a
 * client only ever meets its own portals; and a cursor DECLAREd in SQL is addressed by the protocol
 * under the same name (psycopg 3's server-side cursors), which a prefix broke.
 */
const own = (prefix: string, name: string): string => (name === '' ? '' : `${prefix}${name}`);

/** The statement check (guard.ts), run where it may take its time (guard-pool.ts). */
export type StatementCheck = (sql: string, write: boolean) => Promise<GuardVerdict>;

export interface FrontendContext {
  readonly prefix: string;
  readonly write: boolean;
  /** Absent only in tests (privilege alone must hold): every statement passes unchecked. */
  readonly check?: StatementCheck | undefined;
  readonly refused: (why: string) => void;
}

const UNCHECKED: GuardVerdict = { parameters: 0 };

/**
 * The verdict on one message: at once, or once its statement is checked (Query and Parse messages
 * with the check on). The caller handles the client's next message only after this one's verdict.
 */
export function checkFrontend(type: string, body: Buffer, context: FrontendContext): FrontendVerdict | Promise<FrontendVerdict> {
  if (type === 'X') return { kind: 'terminate' };
  if (IGNORED.has(type)) return { kind: 'ignore' };
  if (type === 'F') {
    context.refused('a fast-path function call');
    return { kind: 'fatal', code: '42501', text: 'efa-sync serve: fast-path function calls (client-side large objects) are refused' };
  }
  if (!RELAYED.has(type)) {
    const shown = /^[\x21-\x7e]$/.test(type) ? `"${type}"` : `0x${type.charCodeAt(0).toString(16).padStart(2, '0')}`;
    return { kind: 'fatal', code: '08P01', text: `efa-sync serve: invalid frontend message type ${shown}` };
  }
  const r = new BodyReader(body);
  switch (type) {
    case 'Q': {
      const sql = r.string();
      if (!r.complete) return malformed(type);
      return after(context.check?.(sql, context.write) ?? UNCHECKED, (verdict): FrontendVerdict => {
        if (verdict.refused === undefined) return { kind: 'relay', bytes: message('Q', cstring(verdict.rewrite?.sql ?? sql)) };
        context.refused(verdict.refused);
        return { kind: 'relay', bytes: message('Q', cstring(refusalSql(verdict.refused, 0, verdict.code))) };
      });
    }
    case 'P': {
      const name = r.string();
      const sql = r.string();
      // The declared parameter types (their count first) are passed on as they came.
      const types = body.subarray(r.at);
      const declared = r.int16();
      if (declared < 0) return malformed(type);
      r.skip(declared * 4);
      if (!r.complete) return malformed(type);
      return after(context.check?.(sql, context.write) ?? UNCHECKED, (checked): FrontendVerdict => {
        // A rewrite is several statements, which a Parse message cannot carry.
        const verdict = checked.rewrite === undefined ? checked : { ...checked, refused: `efa-sync serve: ${checked.rewrite.tag} is served as a simple query only` };
        let text = sql;
        if (verdict.refused !== undefined) {
          context.refused(verdict.refused);
          // Declared types stay as they were; parameters the statement used beyond them are inferred as text.
          text = refusalSql(verdict.refused, Math.max(declared, verdict.parameters), verdict.code);
        }
        return { kind: 'relay', bytes: message('P', Buffer.concat([cstring(own(context.prefix, name)), cstring(text), types])) };
      });
    }
    case 'B': {
      const portal = r.string();
      const statement = r.string();
      const rest = r.at;
      const formats = r.int16();
      r.skip(formats * 2);
      const values = r.int16();
      for (let i = 0; i < values && !r.bad; i++) {
        const length = r.int32();
        if (length > 0) r.skip(length);
        else if (length < -1) r.bad = true;
      }
      const results = r.int16();
      r.skip(results * 2);
      if (formats < 0 || values < 0 || results < 0 || !r.complete) return malformed(type);
      return { kind: 'relay', bytes: message('B', Buffer.concat([cstring(portal), cstring(own(context.prefix, statement)), body.subarray(rest)])) };
    }
    case 'E': {
      const portal = r.string();
      r.int32();
      if (!r.complete) return malformed(type);
      return { kind: 'relay', bytes: message('E', Buffer.concat([cstring(portal), body.subarray(body.length - 4)])) };
    }
    case 'D':
    case 'C': {
      const what = String.fromCharCode(body[0] ?? 0);
      r.skip(1);
      const name = r.string();
      if ((what !== 'S' && what !== 'P') || !r.complete) return malformed(type);
      return { kind: 'relay', bytes: message(type, Buffer.concat([Buffer.from(what, 'latin1'), cstring(what === 'S' ? own(context.prefix, name) : name)])) };
    }
    default:
      // Sync and Flush have no body.
      if (body.length !== 0) return malformed(type);
      return { kind: 'relay', bytes: message(type, body) };
  }
}
