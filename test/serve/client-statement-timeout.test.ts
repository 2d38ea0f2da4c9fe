import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedWarehouse, serveBuilt, type Serving } from './serving.js';

/**
 * A client's own statement_timeout is honoured (PGlite never fires it: serve's watchdog does), bounded
 * by --statement-timeout: the smaller of the two ends the statement with PostgreSQL's 57014, and the
 * client's next statement answers. A pg_sleep(60) that ends at all was ended by a timeout.
 */

let dir: string;
let served: Serving;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-timeout-'));
  await migratedWarehouse(join(dir, 'db'));
  served = await serveBuilt(join(dir, 'db'), ['--statement-timeout', '4']);
}, 300_000);

afterAll(async () => {
  served?.child.kill('SIGTERM');
  if (served) await served.exited;
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function client(options?: string): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'postgres', database: 'postgres', ...(options === undefined ? {} : { options }) });
  await c.connect();
  return c;
}

const failure = (promise: Promise<unknown>): Promise<{ code?: string; message: string }> =>
  promise.then(
    () => ({ message: 'no error' }),
    (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }),
  );

describe('serve honours a client’s statement_timeout', () => {
  it('ends a statement past the client’s SET statement_timeout as PostgreSQL does, and answers the next one', async () => {
    const c = await client();
    try {
      await c.query("SET statement_timeout = '500ms'");
      expect(await failure(c.query('select pg_sleep(60)'))).toEqual({ code: '57014', message: 'canceling statement due to statement timeout' });
      // The engine was restarted under it: the session is new, the connection answers.
      expect((await c.query<{ v: string }>("select 'after' as v")).rows).toEqual([{ v: 'after' }]);
    } finally {
      await c.end();
    }
  }, 120_000);

  it('honours statement_timeout given at startup (options=-c)', async () => {
    const c = await client('-c statement_timeout=700');
    try {
      expect((await c.query<{ t: string }>("select current_setting('statement_timeout') as t")).rows).toEqual([{ t: '700ms' }]);
      expect(await failure(c.query('select pg_sleep(60)'))).toEqual({ code: '57014', message: 'canceling statement due to statement timeout' });
    } finally {
      await c.end();
    }
  }, 120_000);

  it('keeps serve’s own --statement-timeout for a client whose setting is 0 or larger', async () => {
    for (const setting of ['0', "'1h'"]) {
      const c = await client();
      try {
        await c.query(`SET statement_timeout = ${setting}`);
        const ended = await failure(c.query('select pg_sleep(60)'));
        expect(ended.code, setting).toBe('57014');
        expect(ended.message, setting).toBe('canceling statement due to statement timeout (4 s; serve --statement-timeout)');
        expect((await c.query<{ v: number }>('select 1 as v')).rows).toEqual([{ v: 1 }]);
      } finally {
        await c.end();
      }
    }
  }, 180_000);
});
