import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontend, hasReady, migratedWarehouse, rawClient, serveBuilt, type Serving, sqlState, startupPacket } from './serving.js';

/**
 * Issue 54.1, 54.7: one client pipelining statements that break the statement check's parser (a
 * 64,000-term sum, 500 k characters) neither hangs serve nor stalls the others. Before, the parser
 * ran on the proxy's thread: after some of these a parse spun for good, no client was answered and
 * SIGTERM went unheard; while they were parsed, new logins waited. Through the built CLI.
 */

const hostileSum = `select ${Array.from({ length: 64_000 }, (_, i) => i).join(' + ')}`;
const PIPELINED = 150;
const readyCount = (got: Buffer): number => got.toString('latin1').split('Z\0\0\0\x05').length - 1;

let dir: string;
let served: Serving;

/** A fresh client's answer to `select 1`, within 5 s (connect and query), or the error. */
async function selectOne(port: number): Promise<string> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return String((await c.query<{ v: number }>('select 1 as v')).rows[0]?.v);
  } catch (e) {
    return `error ${(e as Error).message}`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-parser-'));
  const dataDir = join(dir, 'db');
  await migratedWarehouse(dataDir);
  served = await serveBuilt(dataDir, []);
}, 300_000);

afterAll(async () => {
  if (served?.child.exitCode === null) served.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a client pipelining statements that break the parser', () => {
  it('is refused statement by statement (54001) while other clients log in and are answered', async () => {
    expect(await selectOne(served.port)).toBe('1');
    const heavy = await rawClient(served.port);
    heavy.socket.write(startupPacket({ user: 'postgres', database: 'postgres' }));
    expect(await heavy.until(hasReady, 20_000)).toBe(true);
    const loggedIn = readyCount(heavy.received());
    const answersFrom = heavy.received().length;
    for (let i = 0; i < PIPELINED; i++) heavy.socket.write(frontend('Q', Buffer.from(`${hostileSum}\0`)));
    // Its first refusal: the parse is under way.
    expect(await heavy.until((got) => readyCount(got) > loggedIn, 30_000)).toBe(true);
    // Others are answered while the heavy client's statements are still being checked.
    for (let i = 0; i < 3; i++) expect(await selectOne(served.port)).toBe('1');
    expect(readyCount(heavy.received()) - loggedIn).toBeLessThan(PIPELINED);
    expect(sqlState(heavy.received().subarray(answersFrom))).toBe('54001');
    expect(heavy.received().toString('utf8')).toMatch(/the statement is too complex to check \(the parser failed/);
    heavy.socket.destroy();
  }, 120_000);

  it('leaves serve answering correctly, and SIGTERM still stops it', async () => {
    expect(await selectOne(served.port)).toBe('1');
    served.child.kill('SIGTERM');
    const stopped = await Promise.race([served.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running 20 s after SIGTERM'), 20_000))]);
    expect(stopped).not.toBe('still running 20 s after SIGTERM');
  }, 60_000);
});
