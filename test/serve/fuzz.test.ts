import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontend, migratedWarehouse, rawClient, serveBuilt, type Serving, startupPacket } from './serving.js';
import { makeRng } from '../../src/sim/rng.js';

/**
 * Issue 29: a bounded fuzz of `serve`'s proxy. With a fixed seed, 300 frontend messages (random
 * types and bytes, and valid messages with bytes flipped, lengths changed or cut short) are sent
 * over fresh connections, a few per connection, for at most 20 s; afterwards a well-behaved pg
 * client must still be answered, and serve must stop on SIGTERM with exit 0.
 */

// mulberry32 (src/sim/rng.ts): small, seedable, the same sequence on every machine.
const prng = makeRng;

const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
const int16 = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n | 0);
  return b;
};

/** Valid messages a client sends: the seeds the mutations start from. */
const VALID: Buffer[] = [
  frontend('Q', cstr('SELECT 1')),
  frontend('Q', cstr('SELECT count(*) FROM efa.runs')),
  frontend('P', Buffer.concat([cstr('s1'), cstr('SELECT $1::int'), int16(1), int32(23)])),
  frontend('B', Buffer.concat([cstr(''), cstr('s1'), int16(0), int16(1), int32(1), Buffer.from('7'), int16(0)])),
  frontend('D', Buffer.concat([Buffer.from('P'), cstr('')])),
  frontend('E', Buffer.concat([cstr(''), int32(0)])),
  frontend('C', Buffer.concat([Buffer.from('S'), cstr('s1')])),
  frontend('S', Buffer.alloc(0)),
  frontend('H', Buffer.alloc(0)),
  frontend('Q', cstr('BEGIN')),
  frontend('Q', cstr("SET client_encoding = 'LATIN1'")),
];

function mutate(random: () => number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const kind = random();
  if (kind < 0.25) {
    // Random type byte and random body, with an honest length.
    const body = Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
    return frontend(Math.floor(random() * 256), body);
  }
  const message = Buffer.from(pick(VALID));
  if (kind < 0.5) {
    // Flip a few bytes of the body (the length stays).
    for (let i = 0; i < 3 && message.length > 5; i++) message[5 + Math.floor(random() * (message.length - 5))] = Math.floor(random() * 256);
    return message;
  }
  if (kind < 0.7) {
    // A lying length: shorter, longer, negative or huge.
    message.writeInt32BE(pick([0, 3, 5, message.length + 100, -1, 0x7fffffff, 70_000_000]), 1);
    return message;
  }
  if (kind < 0.85) return message.subarray(0, Math.max(1, Math.floor(random() * message.length)));
  return message;
}

describe('serve: a bounded fuzz of the proxy', () => {
  let dir: string;
  let served: Serving | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-fuzz-'));
    await migratedWarehouse(join(dir, 'db'));
    served = await serveBuilt(join(dir, 'db'), ['--auth-timeout', '2', '--idle-in-transaction-timeout', '1', '--max-connections', '8']);
  }, 300_000);

  afterAll(async () => {
    served?.child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers a well-behaved client after 300 random and mutated messages', async () => {
    if (!served) throw new Error('not served');
    const random = prng(29);
    const deadline = Date.now() + 20_000;
    let sent = 0;
    while (sent < 300 && Date.now() < deadline) {
      const raw = await rawClient(served.port).catch(() => undefined);
      if (raw === undefined) continue;
      raw.socket.write(startupPacket({ user: 'postgres', database: 'postgres', application_name: 'fuzz' }));
      const count = 1 + Math.floor(random() * 5);
      for (let i = 0; i < count; i++) raw.socket.write(mutate(random));
      sent += count;
      // Wait a little for the answer, then leave, as a crashing client would.
      await raw.until((got) => got.length > 0 && random() < 0.5, 200);
      raw.socket.destroy();
    }
    expect(sent).toBeGreaterThanOrEqual(100);
    const client = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 30_000 });
    await client.connect();
    try {
      const r = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.runs WHERE $1::int = 1', [1]);
      expect(r.rows[0]?.n).toBe(0);
      const who = await client.query<{ u: string; e: string }>("SELECT current_user AS u, current_setting('client_encoding') AS e");
      expect(who.rows[0]).toEqual({ u: 'efa_serve', e: 'UTF8' });
    } finally {
      await client.end();
    }
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  }, 120_000);
});
