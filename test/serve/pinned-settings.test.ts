import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteEngine } from '../../src/db/pglite-engine.js';
import { PinnedSettings, type GucModule } from '../../src/serve/pinned-settings.js';

/** The check hooks serve pins settings with (issue 54.4/54.1), on a bare PGlite, without the proxy. */
describe('settings pinned by check hooks', () => {
  let db: PGlite;
  let pinned: PinnedSettings;
  const outcome = (text: string): Promise<string> =>
    db.exec(text).then(
      () => 'ran',
      (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
    );

  beforeAll(async () => {
    db = await PGlite.create(await pgliteEngine(false));
    await db.exec('CREATE ROLE pinned_reader');
    pinned = new PinnedSettings((db as unknown as { Module: GucModule }).Module, true);
    pinned.install();
  }, 120_000);
  afterAll(async () => db?.close());

  it("refuses read-write, standard_conforming_strings off and the engine's timers to a role, by every route", async () => {
    await db.exec('SET SESSION AUTHORIZATION pinned_reader');
    for (const text of [
      'SET default_transaction_read_only = off',
      'SET LOCAL transaction_read_only = off',
      'BEGIN READ WRITE',
      'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
      "SELECT set_config('default_transaction_read_only', 'false', false)",
      'SET standard_conforming_strings = off',
      "SET idle_session_timeout = '1s'",
      "SELECT set_config('idle_in_transaction_session_timeout', '100', false)",
    ]) {
      expect(await outcome(text), text).toMatch(/^42501: efa-sync serve: .* can only be (on|0)/);
      await db.exec('ROLLBACK').catch(() => undefined);
    }
    expect(await outcome('SET idle_session_timeout = 0; SET default_transaction_read_only = on; BEGIN READ ONLY; COMMIT')).toBe('ran');
    await db.exec('RESET ALL');
    expect((await db.query<{ v: string }>("SELECT current_setting('default_transaction_read_only') AS v")).rows).toEqual([{ v: 'on' }]);
    expect(await outcome("ALTER ROLE pinned_reader SET work_mem = '1GB'")).toMatch(/^25006: cannot execute ALTER ROLE in a read-only transaction/);
    await db.exec('SET SESSION AUTHORIZATION postgres');
  });

  it('lets the superuser change them, with PostgreSQL\'s own hooks back once lifted', async () => {
    expect((await db.query("SELECT current_user AS u, current_setting('is_superuser') AS s")).rows).toEqual([{ u: 'postgres', s: 'on' }]);
    expect(await outcome('SET default_transaction_read_only = off')).toBe('ran');
    pinned.lift();
    expect(await outcome("SET idle_session_timeout = '1h'; RESET idle_session_timeout")).toBe('ran');
    pinned.install();
  });

  it("reads the session's statement_timeout for serve's watchdog", async () => {
    await db.exec("SET statement_timeout = '7s'");
    expect(pinned.statementTimeoutMs()).toBe(7000);
    await db.exec("SET statement_timeout = '250ms'");
    expect(pinned.statementTimeoutMs()).toBe(250);
  });
});
