import { frontend, rawClient, startupPacket, type RawClient } from '../serving.js';
import type { Check, Reference } from './results.js';

/*
 * A client that speaks the wire itself and counts what comes back: PostgreSQL answers every Sync and every
 * simple Query with exactly one ReadyForQuery, skips a failed extended batch up to its Sync, and reports the
 * transaction status in each ReadyForQuery. Drivers (pgJDBC, node pg) rely on that count to match answers to
 * queries: one ReadyForQuery too many and every later answer belongs to the query before.
 */

interface Message {
  readonly type: string;
  readonly body: Buffer;
}

/** The backend messages in `got`, from `from` on (a partial message at the end is left out). */
function messages(got: Buffer, from = 0): Message[] {
  const out: Message[] = [];
  let at = from;
  while (at + 5 <= got.length) {
    const length = got.readInt32BE(at + 1);
    if (at + 1 + length > got.length) break;
    out.push({ type: String.fromCharCode(got[at] ?? 0), body: got.subarray(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return out;
}

const cstr = (text: string): Buffer => Buffer.from(`${text}\0`);
const int16 = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

const parse = (name: string, sql: string): Buffer => frontend('P', Buffer.concat([cstr(name), cstr(sql), int16(0)]));
const bind = (portal: string, statement: string): Buffer => frontend('B', Buffer.concat([cstr(portal), cstr(statement), int16(0), int16(0), int16(0)]));
const describePortal = (portal: string): Buffer => frontend('D', Buffer.concat([Buffer.from('P'), cstr(portal)]));
const execute = (portal: string, maxRows = 0): Buffer => frontend('E', Buffer.concat([cstr(portal), int32(maxRows)]));
const sync = (): Buffer => frontend('S', Buffer.alloc(0));
const query = (sql: string): Buffer => frontend('Q', cstr(sql));
/** One unnamed Parse/Bind/Describe/Execute/Sync batch, as drivers send a query. */
const batch = (sql: string): Buffer => Buffer.concat([parse('', sql), bind('', ''), describePortal(''), execute(''), sync()]);

/** The first column of each DataRow, as text. */
const values = (ms: readonly Message[]): string[] =>
  ms.filter((m) => m.type === 'D').map((m) => {
    const length = m.body.readInt32BE(2);
    return length < 0 ? 'NULL' : m.body.subarray(6, 6 + length).toString('utf8');
  });

/** The SQLSTATEs of the ErrorResponses. */
const states = (ms: readonly Message[]): string[] =>
  ms.filter((m) => m.type === 'E').map((m) => {
    const at = m.body.indexOf(Buffer.from('C'));
    return m.body.subarray(at + 1, m.body.indexOf(0, at)).toString('latin1');
  });

/** The command tags of the CommandCompletes, in order. */
const tags = (ms: readonly Message[]): string[] => ms.filter((m) => m.type === 'C').map((m) => m.body.subarray(0, m.body.indexOf(0)).toString('latin1'));

/** The transaction status of each ReadyForQuery, in order ("I", "T", "E"). */
const readies = (ms: readonly Message[]): string => ms.filter((m) => m.type === 'Z').map((m) => String.fromCharCode(m.body[0] ?? 0)).join('');

/**
 * Sends `bytes` and collects the answer until `expectedReadies` ReadyForQuery arrived, then waits a moment
 * more: a surplus ReadyForQuery (the bug this guards against) comes right behind the expected ones.
 */
async function exchange(c: RawClient, bytes: Buffer, expectedReadies: number): Promise<Message[]> {
  const from = c.received().length;
  c.socket.write(bytes);
  await c.until((got) => readies(messages(got, from)).length >= expectedReadies, 20_000);
  await new Promise((r) => setTimeout(r, 300));
  return messages(c.received(), from);
}

export async function rawWireChecks(port: number, ref: Reference): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (aspect: Check['aspect'], name: string, expected: unknown, got: unknown): void => {
    checks.push({ aspect, check: name, ok: String(expected) === String(got), expected: String(expected), got: String(got) });
  };
  const c = await rawClient(port);
  try {
    const login = await exchange(c, startupPacket({ user: 'postgres', database: 'postgres', client_encoding: 'UTF8' }), 1);
    check('connect', 'startup: authentication ok, then one ReadyForQuery (I)', 'R I', `${login[0]?.type} ${readies(login)}`);

    const rows = await exchange(c, batch('select count(*) from efa.pins'), 1);
    check('rows', 'Parse/Bind/Describe/Execute/Sync of count(*) from efa.pins: the value, one ReadyForQuery', `${ref.pins} I`, `${values(rows).join(',')} ${readies(rows)}`);

    const three = await exchange(c, Buffer.concat([batch("select 'one'"), batch('select 1/0'), batch("select 'three'")]), 3);
    check('after_error', 'three pipelined Syncs, the middle one failing: ReadyForQuery count', 3, readies(three).length);
    check('after_error', 'three pipelined Syncs, the middle one failing: rows and errors', 'one,three 22012', `${values(three).join(',')} ${states(three).join(',')}`);
    // The same with the middle one refused (by serve's statement check, or by privilege with the check off).
    const refused = await exchange(c, Buffer.concat([batch("select 'one'"), batch('create table efa.raw_x (i int)'), batch("select 'three'")]), 3);
    check('after_error', 'three pipelined Syncs, the middle one refused: ReadyForQuery count', 3, readies(refused).length);
    check('after_error', 'three pipelined Syncs, the middle one refused: rows and errors', 'one,three 42501|25006', `${values(refused).join(',')} ${states(refused).map((s) => (['42501', '25006'].includes(s) ? '42501|25006' : s)).join(',')}`);
    const next = await exchange(c, batch("select 'after'"), 1);
    check('after_error', 'the batch after them answers its own row', 'after I', `${values(next).join(',')} ${readies(next)}`);

    const skipped = await exchange(c, Buffer.concat([parse('', 'selec 1'), bind('', ''), describePortal(''), execute(''), sync()]), 1);
    check('after_error', 'a batch whose Parse fails: one error, the rest skipped to its Sync, one ReadyForQuery', 'E Z', skipped.map((m) => m.type).join(' '));
    check('after_error', 'a syntax error: SQLSTATE 42601', '42601', states(skipped).join(','));

    const simple = await exchange(c, query("select 1/0; select 'not run'"), 1);
    check('after_error', "simple Query 'select 1/0; select ...': one error, the rest not run, one ReadyForQuery", '22012 - I', `${states(simple).join(',')} ${values(simple).join(',') || '-'} ${readies(simple)}`);

    const inTx = await exchange(c, Buffer.concat([query('begin'), query('select 1/0'), query("select 'x'"), query('rollback'), query("select 'y'")]), 5);
    check('after_error', 'begin; select 1/0; select; rollback; select: the transaction status of each ReadyForQuery', 'TEEII', readies(inTx));
    check('after_error', 'begin; select 1/0; select; rollback; select: errors and rows', '22012,25P02 y', `${states(inTx).join(',')} ${values(inTx).join(',')}`);

    // A named portal read two rows at a time (what setFetchSize does in pgJDBC): PortalSuspended, then the rest.
    const portal = await exchange(
      c,
      Buffer.concat([query('begin'), parse('', "select x from (values ('a'),('b'),('c')) v(x) order by x"), bind('p1', ''), execute('p1', 2), sync(), execute('p1', 2), sync(), query('commit')]),
      4,
    );
    const shape = portal.filter((m) => 'DsCZ'.includes(m.type)).map((m) => m.type).join('');
    check('pool_cursor', 'a named portal fetched 2 rows at a time: rows', 'a,b,c', values(portal).join(','));
    check('pool_cursor', 'a named portal fetched 2 rows at a time: DataRow, PortalSuspended, CommandComplete, ReadyForQuery', 'CZDDsZDCZCZ', shape);

    // What Npgsql (Power BI) sends when a pooled connection is reused: the session as new, still the reader, still read-only.
    const reset = await exchange(c, Buffer.concat([query("set application_name = 'changed'"), query('discard all'), query("select current_user || ' ' || current_setting('default_transaction_read_only') || ' ' || current_setting('application_name')")]), 3);
    check('pool_cursor', "DISCARD ALL (Npgsql's pool reset): answered as PostgreSQL answers it, one CommandComplete and no rows", 'SET,DISCARD ALL,SELECT 1 -', `${tags(reset).join(',')} ${states(reset).join(',') || '-'}`);
    check('pool_cursor', 'after DISCARD ALL: the role, read-only and the startup\'s application_name', 'efa_serve on ', values(reset).at(-1));

    // Last, since serve restarts its engine on a cancel: a cancel of the running batch of two pipelined ones.
    const key = login.find((m) => m.type === 'K');
    if (key) {
      const from = c.received().length;
      c.socket.write(Buffer.concat([batch('select count(*) from generate_series(1, 2000000000)'), batch("select 'after the cancel'")]));
      await new Promise((r) => setTimeout(r, 500));
      const cancel = await rawClient(port);
      cancel.socket.end(Buffer.concat([int32(16), int32(80877102), key.body.subarray(0, 8)]));
      await c.until((got) => readies(messages(got, from)).length >= 2, 90_000);
      await new Promise((r) => setTimeout(r, 300));
      const cancelled = messages(c.received(), from);
      check('after_error', 'a cancel of the first of two pipelined batches: ReadyForQuery count', 2, readies(cancelled).length);
      check('after_error', 'a cancel of the first of two pipelined batches: its error', '57014', states(cancelled)[0]);
      const afterCancel = await exchange(c, batch("select 'answered'"), 1);
      check('after_error', 'after the cancel: the next batch answers its own row', 'answered I', `${values(afterCancel).join(',')} ${readies(afterCancel)}`);
    } else check('connect', 'startup: BackendKeyData (the cancel key)', 'K', login.map((m) => m.type).join(''));
  } finally {
    c.socket.end(frontend('X', Buffer.alloc(0)));
    c.socket.destroy();
  }
  return checks;
}
