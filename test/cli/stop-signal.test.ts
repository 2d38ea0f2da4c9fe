import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { jsonLines, runBuiltCli, spawnBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

/** Statements of efa-sync processes on the test database that the server is still executing. */
async function activeStatements(url: string): Promise<{ pid: number; query: string }[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ pid: number; query: string }>(
      `SELECT pid, query FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'efa-sync' AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    return r.rows;
  } finally {
    await c.end();
  }
}

const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('a stopped run stops its statements (SIGTERM, SIGINT), through the built CLI', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let jobFile: string;
  beforeAll(async () => {
    // Slow answers keep the run in its sweep long enough to stop it there.
    sim = await startSimulator({ port: 0, seed: 17, size: 1500, faults: 'latency=40-90' });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-stop-'));
    jobFile = join(dir, 'stop.json');
    await writeFile(
      jobFile,
      JSON.stringify({
        name: 'stop',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 20, concurrency: 2 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true } },
      }),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(dbKind() !== 'postgres')(
    'SIGTERM while a statement waits on the server: cancelled, none active 5 s later, one line, exit 143; the next run resumes',
    async () => {
      const child = spawnBuiltCli(['run', jobFile, '--db', db.url, '--log-format', 'json']);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await until('the sweep to start', () => /"msg":"coordInfo: /.test(stderr));

      // Another session takes the tables the sweep writes: the run's next write waits on the server,
      // as a runaway ledger statement would run on, whatever happens to the process.
      const blocker = new pg.Client({ connectionString: db.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE efa.run_tiles, efa.pins IN ACCESS EXCLUSIVE MODE');
      try {
        await until('a statement of the run waiting on the server', async () => (await activeStatements(db.url)).length > 0);
        const signalled = Date.now();
        const before = stderr.length;
        child.kill('SIGTERM');
        const code = await exited;
        const after = stderr.slice(before);
        expect(code, stderr.slice(-1500)).toBe(143);
        // Still holding the lock: a statement that was not cancelled would still be waiting for it.
        expect(await activeStatements(db.url)).toEqual([]);
        expect(Date.now() - signalled).toBeLessThan(5_000);
        // One line after the signal, and it says why the run stopped.
        const stopLines = jsonLines(after);
        expect(stopLines).toHaveLength(1);
        expect(String(stopLines[0]?.['msg'])).toContain('stopped by SIGTERM');
        expect(jsonLines(stderr).at(-1)).toMatchObject({ level: 'error', error: 'RunStoppedError', exitCode: 143 });
        expect(String(stopLines[0]?.['msg'])).toContain('the next `efa-sync run` of job stop resumes');
      } finally {
        await blocker.query('ROLLBACK').catch(() => undefined);
        await blocker.end();
      }

      const next = await runBuiltCli(['run', jobFile, '--db', db.url, '--log-format', 'json'], {}, 300_000);
      expect(next.code, next.stderr.slice(-1500)).toBe(0);
      expect(next.stderr).toMatch(/resuming run \d+ of job stop/);
    },
    400_000,
  );

  it.skipIf(dbKind() !== 'postgres')(
    'a statement past --statement-timeout: the server cancels it, one line says what to do, exit 1; the next run resumes',
    async () => {
      const timed = join(dir, 'timed.json');
      await writeFile(timed, (await readFile(jobFile, 'utf8')).replace('"name":"stop"', '"name":"timed"'));
      const child = spawnBuiltCli(['run', timed, '--db', db.url, '--log-format', 'json'], { EFA_STATEMENT_TIMEOUT: '1' });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await until('the sweep to start', () => /"msg":"coordInfo: /.test(stderr));
      const blocker = new pg.Client({ connectionString: db.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE efa.run_tiles, efa.pins IN ACCESS EXCLUSIVE MODE');
      let code: number | null;
      try {
        code = await exited;
      } finally {
        await blocker.query('ROLLBACK').catch(() => undefined);
        await blocker.end();
      }
      expect(code, stderr.slice(-1500)).toBe(1);
      const last = jsonLines(stderr).at(-1);
      expect(last).toMatchObject({ level: 'error', error: 'StatementTimeoutError', exitCode: 1 });
      expect(String(last?.['msg'])).toContain('statement timeout of 1 s');
      expect(String(last?.['msg'])).toContain('raise --statement-timeout / $EFA_STATEMENT_TIMEOUT');
      expect(String(last?.['msg'])).toContain('the next `efa-sync run` of job timed resumes');

      const next = await runBuiltCli(['run', timed, '--db', db.url, '--log-format', 'json'], {}, 300_000);
      expect(next.code, next.stderr.slice(-1500)).toBe(0);
      expect(next.stderr).toMatch(/resuming run \d+ of job timed/);
    },
    400_000,
  );

  it.skipIf(dbKind() !== 'pglite')('SIGINT on the embedded database: one line, exit 130, the next run resumes', async () => {
    const child = spawnBuiltCli(['run', jobFile, '--db', db.url, '--log-format', 'json']);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until('the sweep to start', () => /"msg":"coordInfo: /.test(stderr));
    await new Promise((r) => setTimeout(r, 1_000));
    const before = stderr.length;
    child.kill('SIGINT');
    const code = await exited;
    expect(code, stderr.slice(-1500)).toBe(130);
    const after = jsonLines(stderr.slice(before));
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ level: 'error', error: 'RunStoppedError', exitCode: 130 });
    expect(String(after[0]?.['msg'])).toContain('stopped by SIGINT');

    const next = await runBuiltCli(['run', jobFile, '--db', db.url, '--log-format', 'json'], {}, 300_000);
    expect(next.code, next.stderr.slice(-1500)).toBe(0);
    expect(next.stderr).toMatch(/resuming run \d+ of job stop/);
  }, 400_000);
});
