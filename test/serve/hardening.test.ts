import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { runBuiltCli } from '../helpers/built-cli.js';
import { frontend, migratedWarehouse, rawClient, serveBuilt, type Serving, sqlState, startupPacket } from './serving.js';

/**
 * Issue 29.1-5: no client of `efa-sync serve` can crash, wedge or starve it. Each case runs against
 * the built CLI and ends by checking that another, well-behaved client is still answered. `serve` is
 * for the embedded database only, so this file runs on PGlite whatever TEST_DATABASE_URL says.
 */

let dir: string;
let dataDir: string;
/** serve's own temporary folders go here, so the test can see that none is left behind. */
let serveTmp: string;

/** The password of the server most cases run against (so the password exchange is attacked too). */
const password = 'hardening-Secret-3';

const clientOf = (port: number, extra: Partial<pg.ClientConfig> = {}): pg.Client =>
  new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', password, connectionTimeoutMillis: 20_000, ...extra });

/** The socket under a logged-in pg client, to send it what no library would. */
const socketOf = (client: pg.Client): NodeJS.WritableStream => (client as unknown as { connection: { stream: NodeJS.WritableStream } }).connection.stream;

/** A fresh client's answer to a query: the value, or the error message. */
async function ask(port: number, query: string): Promise<string> {
  const c = clientOf(port);
  try {
    await c.connect();
    const r = await c.query<{ v: unknown }>(query);
    return String(r.rows[0]?.v);
  } catch (e) {
    return `error: ${(e as Error).message}`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function stop(served: Serving): Promise<number | string | null> {
  served.child.kill('SIGTERM');
  return served.exited;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-hardening-'));
  dataDir = join(dir, 'db');
  serveTmp = join(dir, 'tmp');
  await rm(serveTmp, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(serveTmp));
  // The migrations alone (schema efa, the role's grants): no harvest needed for these cases.
  await migratedWarehouse(dataDir);
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('serve: one client cannot crash, wedge or starve it', () => {
  let served: Serving;

  beforeAll(async () => {
    served = await serveBuilt(dataDir, ['--idle-in-transaction-timeout', '2', '--auth-timeout', '2', '--max-connections', '6'], {
      TMPDIR: serveTmp,
      EFA_SERVE_PASSWORD: password,
    });
  }, 300_000);

  afterAll(async () => {
    if (served) expect(await stop(served)).toBe(0);
  });

  it('refuses a 1,000-deep nested query and a 2,000-term sum with a reason, and answers the next client', async () => {
    const nested = `SELECT ${'(SELECT '.repeat(1000)}1${')'.repeat(1000)}`;
    expect(await ask(served.port, nested)).toMatch(/^error: efa-sync serve: .*(nested too deeply|too large|stack)/);
    const flat = `SELECT ${Array.from({ length: 2000 }, () => '1').join('+')} AS v`;
    expect(await ask(served.port, flat)).toMatch(/^error: efa-sync serve: .*(nested too deeply|too large)|^2000$/);
    expect(await ask(served.port, 'SELECT 41 + 1 AS v')).toBe('42');
  }, 60_000);

  it.each([
    ['z', 0x7a],
    ['NUL', 0],
  ])('closes a client that sends an unknown message type (%s) with FATAL 08P01; others are answered', async (_name, type) => {
    const hostile = clientOf(served.port);
    const failed = new Promise<string>((resolve) => {
      hostile.on('error', (e) => resolve(e.message));
      hostile.on('end', () => resolve('closed'));
    });
    await hostile.connect();
    socketOf(hostile).write(frontend(type, Buffer.alloc(0)));
    expect(await failed).toMatch(/invalid frontend message type|closed/);
    expect(await ask(served.port, 'SELECT 7 AS v')).toBe('7');
  }, 60_000);

  it('refuses client encodings PGlite cannot convert (SET and startup) and stays alive', async () => {
    for (const encoding of ['SJIS', 'BIG5', 'EUC_JP']) {
      const c = clientOf(served.port);
      await c.connect();
      try {
        await expect(c.query(`SET client_encoding = '${encoding}'`)).rejects.toThrow(/client_encoding "?\w+"? is not supported/);
        const r = await c.query<{ v: string }>("SELECT 'Untertürkheim' AS v");
        expect(r.rows[0]?.v).toBe('Untertürkheim');
      } finally {
        await c.end();
      }
    }
    const raw = await rawClient(served.port);
    raw.socket.write(startupPacket({ user: 'postgres', database: 'postgres', client_encoding: 'SJIS' }));
    await raw.closed;
    expect(sqlState(raw.received())).toBe('0A000');
    expect(await ask(served.port, "SELECT current_setting('client_encoding') AS v")).toBe('UTF8');
  }, 60_000);

  it('refuses an oversized password message before authentication on its header, without reading it', async () => {
    const raw = await rawClient(served.port);
    raw.socket.write(startupPacket({ user: 'postgres', database: 'postgres' }));
    // The server asks for SCRAM (AuthenticationSASL, type R).
    expect(await raw.until((got) => got[0] === 0x52, 20_000)).toBe(true);
    // A password message announcing 100 MB, of which only the header is sent.
    const head = Buffer.alloc(5);
    head.write('p');
    head.writeInt32BE(100_000_000, 1);
    raw.socket.write(head);
    await raw.closed;
    expect(sqlState(raw.received())).toBe('54000');
    expect(raw.received().toString('latin1')).toMatch(/before authentication is over the limit/);
    expect(await ask(served.port, 'SELECT 1 AS v')).toBe('1');
  }, 120_000);

  it('tells the client beyond --max-connections "too many connections"; the authentication timeout frees the silent ones', async () => {
    const silent = await Promise.all(Array.from({ length: 6 }, () => rawClient(served.port)));
    const refused = await ask(served.port, 'SELECT 1 AS v');
    expect(refused).toMatch(/too many clients/);
    await Promise.all(silent.map((s) => s.closed));
    for (const s of silent) expect(s.received().toString('latin1')).toMatch(/authentication not completed within 2 s/);
    expect(await ask(served.port, 'SELECT 2 AS v')).toBe('2');
  }, 60_000);

  it('rolls back and disconnects a client idle in a transaction, so the next one is answered', async () => {
    const idle = clientOf(served.port);
    idle.on('error', () => undefined);
    await idle.connect();
    await idle.query('BEGIN');
    await idle.query('SELECT 1');
    // The next client waits no longer than the timeout (2 s here), then is answered.
    expect(await ask(served.port, 'SELECT 3 AS v')).toBe('3');
    await expect(idle.query('SELECT 1')).rejects.toThrow(/idle-in-transaction timeout|Connection terminated|not queryable/);
    await idle.end().catch(() => undefined);
  }, 60_000);

  it('never lets one client see another one’s SET or PREPARE', async () => {
    const a = clientOf(served.port);
    const b = clientOf(served.port);
    await a.connect();
    await b.connect();
    try {
      await a.query('SET search_path TO efa, public');
      await a.query('PREPARE planted AS SELECT 99');
      const seen = await b.query<{ search_path: string }>('SHOW search_path');
      expect(seen.rows[0]?.search_path).not.toMatch(/efa/);
      await expect(b.query('EXECUTE planted')).rejects.toThrow(/does not exist/);
      // Protocol-level statements of the same name (pg's named queries, JDBC's S_1 …) stay each client's own.
      for (let round = 0; round < 2; round++) {
        const [fromA, fromB] = await Promise.all([
          a.query<{ v: string }>({ name: 'same', text: 'SELECT $1::text AS v', values: ['a'] }),
          b.query<{ v: number }>({ name: 'same', text: 'SELECT $1::int * 2 AS v', values: [21] }),
        ]);
        expect(fromA.rows[0]?.v).toBe('a');
        expect(fromB.rows[0]?.v).toBe(42);
      }
    } finally {
      await a.end();
    }
    try {
      // And a client after one that has gone.
      const after = await b.query<{ search_path: string }>('SHOW search_path');
      expect(after.rows[0]?.search_path).not.toMatch(/efa/);
    } finally {
      await b.end();
    }
  }, 60_000);

  it('honours a cancel request: the running statement ends, the server answers again', async () => {
    const busy = clientOf(served.port);
    busy.on('error', () => undefined);
    await busy.connect();
    const key = busy as unknown as { processID: number; secretKey: number };
    const running = busy.query('SELECT count(*) FROM generate_series(1, 2000000000)').then(
      () => 'finished',
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 500));
    const cancel = await rawClient(served.port);
    const packet = Buffer.alloc(16);
    packet.writeInt32BE(16);
    packet.writeInt32BE(80877102, 4);
    packet.writeInt32BE(key.processID, 8);
    packet.writeInt32BE(key.secretKey, 12);
    cancel.socket.write(packet);
    expect(await running).toMatch(/canceling statement due to user request/);
    const again = await busy.query<{ v: number }>('SELECT 5 AS v');
    expect(again.rows[0]?.v).toBe(5);
    await busy.end();
    expect(await ask(served.port, 'SELECT 6 AS v')).toBe('6');
  }, 120_000);
});

describe('serve: stopping and starting', () => {
  it('ends on SIGTERM within seconds while a client runs a long statement, leaving no temporary folder', async () => {
    const served = await serveBuilt(dataDir, [], { TMPDIR: serveTmp });
    const busy = clientOf(served.port);
    busy.on('error', () => undefined);
    await busy.connect();
    void busy.query('SELECT count(*) FROM generate_series(1, 2000000000)').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    const raw = await rawClient(served.port);
    raw.socket.write(startupPacket({ user: 'postgres', database: 'postgres' }));
    raw.socket.write(frontend('z', Buffer.alloc(0)));
    expect(await stop(served)).toBe(0);
    await busy.end().catch(() => undefined);
    expect((await readdir(serveTmp)).filter((name) => name.startsWith('efa-sync-serve-'))).toEqual([]);
    // The database opens afterwards.
    const db = await openDb(`pglite:${dataDir}`);
    await db.close();
  }, 120_000);

  it('on a port in use, says which port and what to do; logs the authentication honestly', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const r = await runBuiltCli(['serve', '--db', `pglite:${dataDir}`, '--port', String(port)], { EFA_LOG_FORMAT: 'json', TMPDIR: serveTmp });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--port ${port}`);
      expect(r.stderr).toMatch(/already in use .*choose another --port/);
      expect(r.stderr).not.toMatch(/listen EADDRINUSE/);
    } finally {
      holder.close();
    }
    const served = await serveBuilt(dataDir, []);
    expect(await stop(served)).toBe(0);
    const line = served.stderr().split('\n').find((l) => l.includes('serving the embedded database')) ?? '';
    expect(JSON.parse(line)).toMatchObject({ authentication: 'none', readOnly: true });
    expect(line).not.toContain('***');
  }, 120_000);
});
