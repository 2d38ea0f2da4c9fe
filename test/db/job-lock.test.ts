import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { gridStops, startHostileUpstream, type HostileUpstream } from '../helpers/hostile-upstream.js';

/**
 * Issue 22.5 (c): a `grant-reader` analyst must not be able to block a job by taking its advisory
 * lock. Advisory locks have no privileges, so the key must be one the reader cannot know: derived
 * from a per-job secret the reader cannot read, replaced whenever a run lets the lock go. The
 * reader tries the key efa-sync used to take (hashtext of the job name) and every advisory key it
 * saw in pg_locks while a run held the lock; the next run still starts. Two runs of the job still
 * exclude each other (exit 4). PostgreSQL only: an embedded database is one process, locked whole.
 */

const REGION = [9.1, 48.7, 9.2, 48.8] as const;

describe.skipIf(dbKind() !== 'postgres')('job locks against a reader', () => {
  const reader = `efa_lockreader_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
  let created: TestDbUrl;
  let upstream: HostileUpstream;
  let dir: string;
  let file: string;
  let readerUrl: string;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    created = await createTestDbUrl();
    upstream = await startHostileUpstream(gridStops(30, REGION));
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-job-lock-'));
    file = join(dir, 'locked.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'locked',
        baseUrl: upstream.url,
        region: { bbox: [...REGION] },
        rateLimit: { requestsPerSecond: 200, concurrency: 1 },
        sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
      }),
    );
    expect((await runCli(['migrate', '--db', created.url])).code).toBe(0);
    const granted = await runCli(['grant-reader', reader, '--login', '--db', created.url], { EFA_READER_PASSWORD: 'reader-pw-1' });
    expect(granted.code, granted.stderr).toBe(0);
    const u = new URL(created.url);
    u.username = reader;
    u.password = 'reader-pw-1';
    readerUrl = u.toString();
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await upstream?.stop();
    await created?.drop();
    const admin = new pg.Client({ connectionString: created.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${reader}`).catch(() => undefined);
    await admin.end();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const connectReader = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: readerUrl });
    await c.connect();
    clients.push(c);
    return c;
  };

  it('a reader holding every key it can know does not block the job; two runs still exclude each other', async () => {
    const analyst = await connectReader();
    const who = await analyst.query<{ u: string }>('SELECT current_user AS u');
    expect(who.rows[0]?.u).toBe(reader);
    // The key efa-sync took before: anyone could compute it.
    const old = await analyst.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext('efa-sync:locked')) AS ok");
    expect(old.rows[0]?.ok).toBe(true);
    const first = await runCli(['run', file, '--db', created.url]);
    expect(first.code, first.stderr.slice(-800)).toBe(0);
    // The secrets are out of the reader's reach.
    await expect(analyst.query('SELECT secret FROM efa_private.job_lock_secrets')).rejects.toThrow(/permission denied/);

    // A run holds the lock (here: the ETL in this process); a second run exits 4, and the reader
    // notes every advisory key held at that moment.
    const etl = await openDb(created.url);
    let seen: string[] = [];
    try {
      const lock = await etl.lockJob('locked');
      try {
        const second = await runCli(['run', file, '--db', created.url]);
        expect(second.code, second.stderr.slice(-800)).toBe(4);
        expect(second.stderr).toMatch(/job locked is already being run/);
        const held = await analyst.query<{ key: string }>(
          "SELECT ((classid::bigint << 32) | objid::bigint)::text AS key FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND pid <> pg_backend_pid()",
        );
        seen = held.rows.map((r) => r.key);
        expect(seen.length).toBeGreaterThan(0);
      } finally {
        await lock.release();
      }
    } finally {
      await etl.close();
    }
    // The reader takes every key it saw, once the run let go of it.
    const thief = await connectReader();
    for (const key of seen) {
      const got = await thief.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
      expect(got.rows[0]?.ok, key).toBe(true);
    }
    const third = await runCli(['run', file, '--db', created.url]);
    expect(third.code, third.stderr.slice(-800)).toBe(0);
  }, 240_000);
});
