/**
 * Pieces of the PostgreSQL wire protocol (version 3) that `serve`'s proxy writes and reads:
 * backend messages, C strings, and a frame reader that keeps received chunks in a list and copies a
 * message's bytes once, when the whole message is there (a buffer re-copied per chunk made an 80 MB
 * message cost quadratic time before authentication).
 */

export const PROTOCOL_3 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** A typed backend message: type byte, length, body. */
export function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export const cstring = (text: string): Buffer => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);

export const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, text: string): Buffer {
  return message('E', Buffer.concat([cstring(`S${severity}`), cstring(`V${severity}`), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0])]));
}

export const readyForQuery = (status: 'I' | 'T' | 'E'): Buffer => message('Z', Buffer.from(status, 'latin1'));

export const parameterStatus = (name: string, value: string): Buffer => message('S', Buffer.concat([cstring(name), cstring(value)]));

/** A NUL-terminated string at `offset`, and where the next field starts; undefined when there is no NUL. */
export function readCString(buffer: Buffer, offset: number): [string, number] | undefined {
  const end = buffer.indexOf(0, offset);
  if (end < 0) return undefined;
  return [buffer.subarray(offset, end).toString('utf8'), end + 1];
}

/** An E'' literal: the same whatever the client set standard_conforming_strings to. */
export const literal = (text: string): string => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** A quoted identifier. */
export const identifier = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * The bytes received from one client, as the chunks the socket gave; `take` copies one message out
 * (one concatenation per message, whatever the number of chunks it came in).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private first = 0;
  size = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The first `n` bytes (n small: a header), or undefined when fewer have arrived. */
  peek(n: number): Buffer | undefined {
    if (this.size < n) return undefined;
    const head = this.chunks[this.first];
    if (head !== undefined && head.length >= n) return head.subarray(0, n);
    const parts: Buffer[] = [];
    let have = 0;
    for (let i = this.first; have < n; i++) {
      const chunk = this.chunks[i] as Buffer;
      parts.push(chunk.subarray(0, n - have));
      have += Math.min(chunk.length, n - have);
    }
    return Buffer.concat(parts, n);
  }

  /** Removes and returns the first `n` bytes (the caller checked `size >= n`). */
  take(n: number): Buffer {
    const head = this.chunks[this.first];
    let out: Buffer;
    if (head !== undefined && head.length >= n) {
      out = head.subarray(0, n);
      if (head.length === n) this.first++;
      else this.chunks[this.first] = head.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let have = 0;
      while (have < n) {
        const chunk = this.chunks[this.first] as Buffer;
        const part = Math.min(chunk.length, n - have);
        chunk.copy(out, have, 0, part);
        have += part;
        if (part === chunk.length) this.first++;
        else this.chunks[this.first] = chunk.subarray(part);
      }
    }
    this.size -= n;
    if (this.first > 64) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.first = 0;
    this.size = 0;
  }
}

/** The type of the last complete message in a backend answer, and its body's first byte (ReadyForQuery's status). */
export function lastMessage(answer: Uint8Array): { type: string; status?: string } | undefined {
  const view = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength);
  let last: { type: string; status?: string } | undefined;
  for (let at = 0; at + 5 <= view.length; ) {
    const length = view.readInt32BE(at + 1);
    if (length < 4 || at + 1 + length > view.length) break;
    const type = String.fromCharCode(view[at] ?? 0);
    last = type === 'Z' ? { type, status: String.fromCharCode(view[at + 5] ?? 0) } : { type };
    at += 1 + length;
  }
  return last;
}

const QUERY = 0x51;
const SYNC = 0x53;
const READY = 0x5a;

/** Whole protocol messages, as views of `bytes` (a truncated tail is left out). */
export function splitMessages(bytes: Uint8Array): Buffer[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= view.length; ) {
    const length = view.readInt32BE(at + 1);
    if (length < 4 || at + 1 + length > view.length) break;
    out.push(view.subarray(at, at + 1 + length));
    at += 1 + length;
  }
  return out;
}

/**
 * The frontend messages up to and including the first Query or Sync (or all of them when there is
 * none): what PostgreSQL answers with at most one ReadyForQuery. The rest is left in `messages`.
 */
export function takeUnit(messages: Buffer[]): Buffer[] {
  const end = messages.findIndex((m) => m[0] === QUERY || m[0] === SYNC);
  return messages.splice(0, end < 0 ? messages.length : end + 1);
}

/**
 * Runs a client's frontend messages on PGlite and answers as PostgreSQL does: exactly one
 * ReadyForQuery per Query and per Sync, none otherwise. PGlite answers an error inside an
 * extended-protocol batch with ErrorResponse *and* a ReadyForQuery before the Sync has come (the
 * "premature ReadyForQuery" upstream report), then the Sync's own: passed on, a driver that counts
 * ReadyForQuery (pgJDBC, node pg) reads every later answer as the previous query's. PGlite does skip
 * the batch's messages up to the Sync after the error, as PostgreSQL, also across calls; so each
 * unit (messages up to a Query or Sync) runs alone and only its final ReadyForQuery is kept.
 */
export async function postgresAnswer(bytes: Uint8Array, exec: (unit: Uint8Array) => Promise<Uint8Array>): Promise<Uint8Array> {
  const messages = splitMessages(bytes);
  const answers: Buffer[] = [];
  while (messages.length > 0) {
    const unit = takeUnit(messages);
    const last = unit[unit.length - 1]?.[0];
    const answer = splitMessages(await exec(unit.length === 1 ? (unit[0] as Buffer) : Buffer.concat(unit)));
    const keep = last === QUERY || last === SYNC ? answer.findLastIndex((m) => m[0] === READY) : -1;
    answers.push(...answer.filter((m, i) => m[0] !== READY || i === keep));
  }
  // A buffer of its own (not Node's pool): the worker transfers it to the main thread.
  const out = new Uint8Array(answers.reduce((sum, m) => sum + m.length, 0));
  let at = 0;
  for (const m of answers) {
    out.set(m, at);
    at += m.length;
  }
  return out;
}

export const commandComplete = (tag: string): Buffer => message('C', cstring(tag));

/**
 * The answer to several statements run in place of one (DISCARD ALL, run as the reader role may run
 * it: guard.ts) as PostgreSQL answers that one: CommandComplete `tag`, or the first error, then the
 * final ReadyForQuery. Notices and ParameterStatus (a setting RESET ALL changed) are kept, as
 * PostgreSQL sends them too; the parts' row descriptions, rows and tags are not.
 */
export function answerAsOne(answer: Uint8Array, tag: string): Buffer {
  const parts = splitMessages(answer);
  const ready = parts.findLast((m) => m[0] === READY);
  const error = parts.find((m) => m[0] === 0x45);
  const kept = parts.filter((m) => m[0] === 0x4e || m[0] === 0x53);
  return Buffer.concat([...kept, error ?? commandComplete(tag), ...(ready === undefined ? [] : [ready])]);
}
