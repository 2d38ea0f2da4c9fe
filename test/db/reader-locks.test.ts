import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

/**
 * Issue 29 point 13: a `grant-reader --login` analyst holding the migration key (4711001) and the
 * snapshot-partition key (hashtext('efa-sync:snapshot-partitions')) stalled every run until its
 * statement timeout (exit 1). Both locks are now table locks in efa_private (sql/020), which a reader
 * cannot take. Through the built CLI with a short statement timeout, so the old code fails quickly.
 * PostgreSQL only: an embedded database is one process, locked whole.
 */
describe.skipIf(dbKind() !== 'postgres')('migration and snapshot-partition locks against a reader', () => {
  const reader = `efa_lockreader29_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
  let created: TestDbUrl;
  let sim: Simulator;
  let dir: string;
  let file: string;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    created = await createTestDbUrl();
    sim = await startSimulator({ port: 0, seed: 5, size: 800 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-reader-locks-'));
    file = join(dir, 'moving.json');
    const bbox = sim.world.bbox;
    await writeFile(
      file,
      JSON.stringify({
        name: 'moving',
        baseUrl: sim.url,
        region: { bbox: [...bbox] },
        rateLimit: { requestsPerSecond: 200, concurrency: 4 },
        sweeps: { vehicles: { maxPerRequest: 200 } },
      }),
    );
    expect((await runBuiltCli(['migrate', '--db', created.url])).code).toBe(0);
    const granted = await runBuiltCli(['grant-reader', reader, '--login', '--db', created.url], { EFA_READER_PASSWORD: 'reader-pw-29' });
    expect(granted.code, granted.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await sim?.stop();
    await created?.drop();
    const admin = new pg.Client({ connectionString: created.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${reader}`).catch(() => undefined);
    await admin.end();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a reader holding both fixed keys blocks neither the migrate check nor the partitions of a snapshot run, and cannot take the locks that replaced them', async () => {
    const u = new URL(created.url);
    u.username = reader;
    u.password = 'reader-pw-29';
    const analyst = new pg.Client({ connectionString: u.toString(), application_name: 'analyst-notebook' });
    await analyst.connect();
    clients.push(analyst);
    expect((await analyst.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u).toBe(reader);
    await analyst.query('SELECT pg_advisory_lock(4711001)');
    await analyst.query("SELECT pg_advisory_lock(hashtext('efa-sync:snapshot-partitions'))");

    const run = await runBuiltCli(['run', file, '--db', created.url, '--json', '--statement-timeout', '10'], {}, 180_000);
    expect(run.code, run.stderr.slice(-800)).toBe(0);
    const summary = JSON.parse(run.stdout) as RunSummary;
    expect(summary.status).toBe('succeeded');

    // The locks that replaced the keys are out of the reader's reach.
    for (const table of ['efa_private.migration_lock', 'efa_private.snapshot_partitions_lock']) {
      await analyst.query('BEGIN');
      await expect(analyst.query(`LOCK TABLE ${table} IN ACCESS SHARE MODE`)).rejects.toThrow(/permission denied/);
      await analyst.query('ROLLBACK');
    }
  }, 300_000);
});
