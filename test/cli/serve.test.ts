import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type Served } from '../../src/cli/serve.js';
import { openDb } from '../../src/db/index.js';
import { startSimulator } from '../../src/sim/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { inlineJob } from '../helpers/job.js';
import { builtCli } from '../helpers/built-cli.js';

const run = promisify(execFile);
const psqlPath = '/usr/bin/psql';
const hasPsql = existsSync(psqlPath);
const root = fileURLToPath(new URL('../..', import.meta.url));

async function psql(url: string, query: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(psqlPath, [url, '-X', '-v', 'ON_ERROR_STOP=1', '-tA', '-c', query], { timeout: 30_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** The psql connection URL inside the line `serve` prints. */
const urlOf = (psqlLine: string): string => /psql "([^"]+)"/.exec(psqlLine)?.[1] ?? '';

describe('efa-sync serve: the embedded database over the PostgreSQL protocol', () => {
  let dir: string;
  let dataDir: string;
  let stops: number;
  let served: Served | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-'));
    dataDir = join(dir, 'db');
    const sim = await startSimulator({ port: 0, seed: 3, size: 400 });
    const db = await openDb(`pglite:${dataDir}`);
    try {
      const loaded = inlineJob({
        name: 'serve-test',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] as [number, number, number, number] },
        rateLimit: { requestsPerSecond: 500, concurrency: 4 },
        sweeps: { coord: { types: ['STOP'], maxPerRequest: 500 } },
      });
      const summary = await runJob({ loaded, db, log: createLogger({ level: 'error', format: 'json' }) });
      expect(summary.status).toBe('succeeded');
      const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL`.execute(db.kysely);
      stops = n.rows[0]?.n ?? 0;
    } finally {
      await db.close();
      await sim.stop();
    }
    expect(stops).toBeGreaterThan(10);
    served = await startServe({ dataDir, port: 0 });
  }, 180_000);

  afterAll(async () => {
    await served?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers pg clients, two at once, with PostGIS, and refuses writes by default', async () => {
    if (!served) throw new Error('not served');
    const url = urlOf(served.psql);
    const a = new pg.Client({ connectionString: url });
    const b = new pg.Client({ connectionString: url });
    await a.connect();
    await b.connect();
    try {
      const [count, geo] = await Promise.all([
        a.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL'),
        b.query<{ lon: number; lat: number; name: string }>('SELECT ST_X(geom) AS lon, ST_Y(geom) AS lat, name FROM efa.stops ORDER BY stop_id LIMIT 1'),
      ]);
      expect(count.rows[0]?.n).toBe(stops);
      expect(typeof geo.rows[0]?.name).toBe('string');
      expect(Math.abs(geo.rows[0]?.lon ?? 999)).toBeLessThanOrEqual(180);
      // A parameterised query goes through the extended protocol.
      const named = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.stops WHERE name = $1', [geo.rows[0]?.name]);
      expect(named.rows[0]?.n).toBeGreaterThanOrEqual(1);
      await expect(a.query('UPDATE efa.pins SET name = name')).rejects.toThrow(/UPDATE statements are refused: the database is served read-only/);
      await expect(b.query('CREATE TABLE efa.scratch (x int)')).rejects.toThrow(/CREATE statements are refused/);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it.skipIf(!hasPsql)('answers psql: the catalog, the stops and PostGIS; a write is refused', async () => {
    if (!served) throw new Error('not served');
    const url = urlOf(served.psql);
    const count = await psql(url, 'SELECT count(*) FROM efa.stops WHERE deleted_at IS NULL');
    expect(count.stderr).toBe('');
    expect(Number(count.stdout.trim())).toBe(stops);
    const tables = await psql(url, '\\dt efa.*');
    expect(tables.stdout).toMatch(/efa\|pins\|table/);
    const postgis = await psql(url, 'SELECT postgis_lib_version()');
    expect(postgis.stdout.trim()).toMatch(/^3\./);
    const write = await psql(url, 'DELETE FROM efa.pins');
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/DELETE statements are refused/);
  });

  it.skipIf(!hasPsql)('as a command: prints the psql line and the QGIS connection; --write allows writes; Ctrl-C releases the database', async () => {
    await served?.stop();
    served = undefined;
    const child = spawn(process.execPath, [builtCli, 'serve', '--db', `pglite:${dataDir}`, '--port', '0', '--write'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!/QGIS:/.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(stdout).toMatch(/QGIS: .*host 127\.0\.0\.1, port \d+, database postgres, user postgres/);
      expect(stdout).toMatch(/WRITES ALLOWED/);
      const url = urlOf(stdout);
      expect(url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
      // --write changes rows of the harvested relations, never the runs ledger or the migrations.
      const write = await psql(url, "UPDATE efa.pins SET name = 'touched by serve --write' WHERE fid = (SELECT min(fid) FROM efa.pins) RETURNING fid");
      expect(write.stderr).toBe('');
      expect(write.stdout).toMatch(/^\d+\nUPDATE 1/);
      const ledger = await psql(url, "UPDATE efa.runs SET error = 'touched by serve --write' WHERE job_name = 'serve-test'");
      expect(ledger.stderr).toMatch(/permission denied for table runs/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(existsSync(`${dataDir}.efa-sync.lock`)).toBe(false);
    // The write is in the database, seen by the next process.
    const db = await openDb(`pglite:${dataDir}`);
    try {
      const r = await sql<{ name: string }>`SELECT name FROM efa.pins WHERE fid = (SELECT min(fid) FROM efa.pins)`.execute(db.kysely);
      expect(r.rows[0]?.name).toBe('touched by serve --write');
      const runs = await sql<{ error: string | null }>`SELECT error FROM efa.runs WHERE job_name = 'serve-test'`.execute(db.kysely);
      expect(runs.rows[0]?.error).not.toBe('touched by serve --write');
    } finally {
      await db.close();
    }
  }, 150_000);

  it('refuses a PostgreSQL URL: a server speaks the protocol already', async () => {
    const r = await run(process.execPath, [builtCli, 'serve', '--db', 'postgres://u:secret@127.0.0.1:1/x'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/connect to it directly/);
    expect(r.stderr).not.toContain('secret');
  }, 60_000);
});
