import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontend, migratedWarehouse, rawClient, serveBuilt, type Serving, sqlState, startupPacket } from './serving.js';

/**
 * Issue 53.1-3: serve answers the wire as PostgreSQL does, so drivers that count ReadyForQuery
 * (pgJDBC, node pg) never read one query's answer as the next one's; startup parameters and
 * `options` are applied or refused with a FATAL, never dropped; a cursor DECLAREd in SQL is
 * addressed by the protocol under its name. With the statement check on and off.
 */

const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
const parse = (sql: string, name = ''): Buffer => frontend('P', Buffer.concat([cstr(name), cstr(sql), Buffer.from([0, 0])]));
const bind = (portal = '', statement = ''): Buffer => frontend('B', Buffer.concat([cstr(portal), cstr(statement), Buffer.from([0, 0, 0, 0, 0, 0])]));
const execute = (portal = ''): Buffer => frontend('E', Buffer.concat([cstr(portal), Buffer.from([0, 0, 0, 0])]));
const sync = frontend('S', Buffer.alloc(0));
const query = (sql: string): Buffer => frontend('Q', cstr(sql));
const extended = (sql: string): Buffer => Buffer.concat([parse(sql), bind(), execute(), sync]);

/** The backend messages in `got`: type letters, ReadyForQuery with its status, errors with their SQLSTATE, e.g. "1 2 D C Z:I E:22012". */
function shape(got: Buffer): string {
  const out: string[] = [];
  for (let at = 0; at + 5 <= got.length; ) {
    const length = got.readInt32BE(at + 1);
    const type = String.fromCharCode(got[at] ?? 0);
    const body = got.subarray(at + 5, at + 1 + length);
    out.push(type === 'Z' ? `Z:${String.fromCharCode(body[0] ?? 0)}` : type === 'E' ? `E:${sqlState(body) ?? '?'}` : type);
    at += 1 + length;
  }
  return out.join(' ');
}

let dir: string;
let dataDir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-rfq-'));
  dataDir = join(dir, 'db');
  await migratedWarehouse(dataDir);
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each([true, false])('serve answers as PostgreSQL does (statement check %s)', (guard) => {
  let served: Serving;
  beforeAll(async () => {
    served = await serveBuilt(dataDir, [], guard ? {} : { EFA_SERVE_TEST_NO_GUARD: '1' });
  }, 300_000);
  afterAll(async () => {
    served?.child.kill('SIGTERM');
    if (served) await served.exited;
  });

  /** A logged-in raw client: `send` returns what the server answered until `readies` ReadyForQuery have come. */
  async function raw(params: Record<string, string> = {}) {
    const c = await rawClient(served.port);
    c.socket.write(startupPacket({ user: 'postgres', database: 'postgres', ...params }));
    await c.until((got) => shape(got).includes('Z:'), 20_000);
    let seen = c.received().length;
    return {
      client: c,
      send: async (bytes: Buffer, readies: number): Promise<string> => {
        c.socket.write(bytes);
        const count = (): number => (shape(c.received().subarray(seen)).match(/Z:/g) ?? []).length;
        await c.until(() => count() >= readies, 20_000);
        // What else comes shortly after (an extra ReadyForQuery would) is counted too.
        await new Promise((r) => setTimeout(r, 300));
        const got = shape(c.received().subarray(seen));
        seen = c.received().length;
        return got;
      },
    };
  }

  it('gives one ReadyForQuery per Sync and per Query, errors and pipelines included', async () => {
    const c = await raw();
    expect(await c.send(extended('select 1/0'), 1)).toBe('1 E:22012 Z:I');
    expect(await c.send(Buffer.concat([extended('select 1'), extended('select 1/0'), extended('select 2')]), 3)).toBe('1 2 D C Z:I 1 E:22012 Z:I 1 2 D C Z:I');
    // An error, the batch's later messages skipped up to the Sync with no output, one ReadyForQuery.
    expect(await c.send(Buffer.concat([parse('select 1/0'), bind(), execute(), parse('select 3'), bind(), execute()]), 0)).toBe('1 E:22012');
    expect(await c.send(sync, 1)).toBe('Z:I');
    // Inside a transaction the status is the engine's: failed, then idle after the rollback.
    expect(await c.send(query('begin'), 1)).toBe('C Z:T');
    expect(await c.send(extended('select 1/0'), 1)).toBe('1 E:22012 Z:E');
    expect(await c.send(query('select 1'), 1)).toBe('E:25P02 Z:E');
    expect(await c.send(query('rollback'), 1)).toBe('C Z:I');
    expect(await c.send(query('select 1; select 1/0; select 2'), 1)).toBe('T D C E:22012 Z:I');
    // A refusal (serve's own, or the role's privilege with the check off) is one error and one ReadyForQuery.
    expect(await c.send(Buffer.concat([extended("select pg_read_file('PG_VERSION')"), extended('select 7')]), 2)).toBe('1 E:42501 Z:I 1 2 D C Z:I');
    c.client.socket.destroy();
  }, 120_000);

  it('lets a cursor declared in SQL be fetched by the protocol under its own name (psycopg 3)', async () => {
    const c = await raw();
    expect(await c.send(query('begin; declare "efa91_ssc" cursor for select generate_series(1, 3)'), 1)).toBe('C C Z:T');
    expect(await c.send(Buffer.concat([frontend('D', Buffer.concat([Buffer.from('P'), cstr('efa91_ssc')])), execute('efa91_ssc'), sync]), 1)).toBe('T D D D C Z:T');
    expect(await c.send(query('commit'), 1)).toBe('C Z:I');
    c.client.socket.destroy();
  }, 60_000);

  it('answers DISCARD ALL as PostgreSQL does: one CommandComplete, or its first error, and one ReadyForQuery', async () => {
    const c = await raw();
    expect(await c.send(query("set application_name = 'pooled'"), 1)).toMatch(/^(S )?C Z:I$/);
    const from = c.client.received().length;
    expect(await c.send(query('discard all'), 1)).toBe('C Z:I');
    expect(c.client.received().subarray(from).toString('latin1')).toContain('C\0\0\0\x10DISCARD ALL\0');
    expect(await c.send(query("select current_user || ' ' || current_setting('application_name') || ' ' || current_setting('default_transaction_read_only')"), 1)).toBe('T D C Z:I');
    expect(c.client.received().toString('latin1')).toContain('efa_serve  on');
    // Inside a transaction block: PostgreSQL's refusal (25001), the transaction failed; in a failed one, 25P02.
    expect(await c.send(query('begin'), 1)).toBe('C Z:T');
    expect(await c.send(query('discard all'), 1)).toBe('E:25001 Z:E');
    expect(await c.send(query('discard all'), 1)).toBe('E:25P02 Z:E');
    expect(await c.send(query('rollback'), 1)).toBe('C Z:I');
    c.client.socket.destroy();
  }, 60_000);

  it('answers node pg’s queued queries after an error each with its own rows', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'postgres', database: 'postgres' });
    await client.connect();
    try {
      const answers = await Promise.all(
        ['select 1/0 as v', "select 'A' as v", { text: 'select $1::text as v', values: ['B'] }, 'select 1/0 as v', "select 'C' as v"].map((q) =>
          client.query<{ v: string }>(q).then((r) => r.rows[0]?.v, (e: { code?: string }) => `error ${e.code}`),
        ),
      );
      expect(answers).toEqual(['error 22012', 'A', 'B', 'error 22012', 'C']);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('applies startup options and parameters, and refuses the unknown and the forbidden with a FATAL naming them', async () => {
    const c = await raw({ options: '-c search_path=efa,public --statement-timeout=5s -c application_name=my\\ tool', client_encoding: "'utf-8'" });
    expect(await c.send(query("select current_setting('search_path') || '|' || current_setting('statement_timeout') || '|' || current_setting('application_name')"), 1)).toBe('T D C Z:I');
    expect(c.client.received().toString('utf8')).toContain('efa, public|5s|my tool');
    c.client.socket.destroy();
    for (const [params, code, text] of [
      [{ options: '-c no_such_setting=1' }, '42704', 'unrecognized configuration parameter "no_such_setting"'],
      [{ no_such_setting: '1' }, '42704', 'unrecognized configuration parameter "no_such_setting"'],
      [{ options: '-c default_transaction_read_only=off' }, '42501', 'permission denied to set parameter "default_transaction_read_only"'],
      [{ options: '-c log_statement=all' }, '42501', 'permission denied to set parameter "log_statement"'],
      [{ options: '-x' }, '42601', 'invalid command-line argument'],
    ] as const) {
      const refused = await rawClient(served.port);
      refused.socket.write(startupPacket({ user: 'postgres', database: 'postgres', ...params }));
      await refused.closed;
      expect(sqlState(refused.received())).toBe(code);
      expect(refused.received().toString('utf8')).toContain(text);
    }
  }, 60_000);

  it.runIf(existsSync('/usr/share/java/postgresql.jar') && existsSync('/usr/bin/javac'))(
    'gives pgJDBC the right row after a failing statement, a refusal, and with currentSchema',
    async () => {
      const work = await mkdtemp(join(tmpdir(), 'efa-sync-serve-jdbc-'));
      try {
        await writeFile(join(work, 'Check.java'), JDBC_CHECK);
        execFileSync('/usr/bin/javac', ['-cp', '/usr/share/java/postgresql.jar', '-d', work, join(work, 'Check.java')]);
        const out = execFileSync('java', ['-cp', `/usr/share/java/postgresql.jar:${work}`, 'Check', String(served.port)], { encoding: 'utf8', timeout: 60_000 });
        expect(out.trim()).toBe('ERR 22012 | A | B | C | ERR 42501 | D | prepared 10 | search_path=efa | fetched 1000');
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

const JDBC_CHECK = `
import java.sql.*;
public class Check {
  public static void main(String[] a) throws Exception {
    Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + a[0] + "/postgres?user=postgres&sslmode=disable&currentSchema=efa");
    Statement s = c.createStatement();
    StringBuilder out = new StringBuilder();
    try { s.executeQuery("select 1/0"); } catch (SQLException e) { out.append("ERR ").append(e.getSQLState()); }
    for (String v : new String[]{"A", "B", "C"}) { ResultSet r = s.executeQuery("select '" + v + "'"); r.next(); out.append(" | ").append(r.getString(1)); }
    try { s.executeQuery("select pg_read_file('PG_VERSION')"); } catch (SQLException e) { out.append(" | ERR ").append(e.getSQLState()); }
    ResultSet d = s.executeQuery("select 'D'"); d.next(); out.append(" | ").append(d.getString(1));
    PreparedStatement p = c.prepareStatement("select ?::int + 1");
    int right = 0;
    for (int i = 0; i < 10; i++) { p.setInt(1, i); ResultSet r = p.executeQuery(); r.next(); if (r.getInt(1) == i + 1) right++; }
    out.append(" | prepared ").append(right);
    ResultSet sp = s.executeQuery("show search_path"); sp.next(); out.append(" | search_path=").append(sp.getString(1));
    c.setAutoCommit(false);
    Statement f = c.createStatement(); f.setFetchSize(100);
    ResultSet g = f.executeQuery("select generate_series(1, 1000)"); int n = 0; while (g.next()) n++;
    out.append(" | fetched ").append(n);
    c.commit();
    System.out.println(out);
  }
}
`;
