import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { builtCli, cleanEnv } from '../helpers/built-cli.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

/**
 * The conventions of the tools analysts already use (issue 30, point 8), through the BUILT CLI on a
 * PostgreSQL server: libpq's PG* variables select the database when neither --db nor DATABASE_URL is
 * given (no embedded database appears in the working directory, the password is never printed); and
 * ogrinfo, as shipped, lists the analyst's layers of schema efa without the snapshot tables' day
 * partitions, and reads a view's `fid` as its FID with PGSQL_OGR_FID=fid.
 */

const hasOgrinfo = (() => {
  try {
    execFileSync('ogrinfo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const secret = 'never-printed-Pa55';

function runIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, ...args], { cwd, env: { ...process.env, ...cleanEnv, PGHOST: undefined, PGPORT: undefined, PGDATABASE: undefined, PGUSER: undefined, PGPASSWORD: undefined, PGSERVICE: undefined, PGSERVICEFILE: undefined, PGSYSCONFDIR: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!existsSync(builtCli) || dbKind() !== 'postgres')('libpq environment and GDAL conventions (built CLI, PostgreSQL)', () => {
  let sim: Simulator;
  let dir: string;
  let db: TestDbUrl;
  let pgEnv: Record<string, string>;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 2, size: 300 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-pgenv-'));
    db = await createTestDbUrl();
    const u = new URL(db.url);
    pgEnv = {
      PGHOST: u.hostname, PGPORT: u.port || '5432', PGDATABASE: decodeURIComponent(u.pathname.slice(1)), PGUSER: decodeURIComponent(u.username) || 'postgres',
      // The test server trusts local connections; the password is set to check it is never printed.
      PGPASSWORD: u.password ? decodeURIComponent(u.password) : secret,
    };
  }, 60_000);
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('with only PG* set, run writes into that PostgreSQL database and creates no .efa-sync in the working directory', async () => {
    const job = join(dir, 'pgenv.json');
    await writeFile(job, JSON.stringify({
      name: 'pgenv', baseUrl: sim.url, region: { bbox: [9.15, 48.76, 9.19, 48.79] }, rateLimit: { requestsPerSecond: 200, concurrency: 2 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 } },
    }));
    const work = join(dir, 'work');
    await mkdir(work);
    const r = await runIn(work, ['run', job, '--json'], pgEnv);
    expect(r.code, r.stderr).toBe(0);
    expect(await readdir(work)).toEqual([]);
    expect(r.stderr).toContain("database from libpq's environment");
    if (pgEnv.PGPASSWORD === secret) expect(r.stdout + r.stderr).not.toContain(secret);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const runs = await c.query<{ job_name: string; status: string }>('SELECT job_name, status FROM efa.runs');
      expect(runs.rows).toEqual([{ job_name: 'pgenv', status: 'succeeded' }]);
      const stops = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM efa.pins WHERE type = 'STOP'");
      expect(stops.rows[0]!.n).toBeGreaterThan(0);
    } finally {
      await c.end();
    }
  }, 180_000);

  it.skipIf(!hasOgrinfo)('ogrinfo lists no day partition in schema efa, and reads a view\'s fid as FID with PGSQL_OGR_FID=fid', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      // Migrated by the run above; three days of partitions, as snapshot runs create them.
      for (const day of ['2026-03-01', '2026-03-02', '2026-03-03']) await c.query('SELECT efa.ensure_snapshot_partitions($1::date)', [day]);
    } finally {
      await c.end();
    }
    const conn = `PG:host=${pgEnv.PGHOST} port=${pgEnv.PGPORT} dbname=${pgEnv.PGDATABASE} user=${pgEnv.PGUSER} schemas=efa`;
    const env = { ...process.env, PGPASSWORD: pgEnv.PGPASSWORD };
    const layers = execFileSync('ogrinfo', ['-ro', '-so', conn], { env, encoding: 'utf8' });
    expect(layers).toMatch(/\bcurrent_stops \(Point\)/);
    expect(layers).not.toMatch(/_\d{8} \(/);
    const view = execFileSync('ogrinfo', ['-ro', '-so', conn, 'current_stops'], { env: { ...env, PGSQL_OGR_FID: 'fid' }, encoding: 'utf8' });
    expect(view).toContain('FID Column = fid');
  }, 120_000);

  it('PGSERVICE reads the service from PGSERVICEFILE, else ~/.pg_service.conf, else $PGSYSCONFDIR/pg_service.conf; what it cannot pass on is refused by name (issue 45)', async () => {
    const service = `# written by the test\n[efa_test]\nhost=${pgEnv.PGHOST}\nport=${pgEnv.PGPORT}\ndbname=${pgEnv.PGDATABASE}\nuser=${pgEnv.PGUSER}\npassword=${pgEnv.PGPASSWORD}\n\n[efa_hostaddr]\nhostaddr=127.0.0.1\n`;
    const home = join(dir, 'home');
    const sysconf = join(dir, 'sysconf');
    await mkdir(home, { recursive: true });
    await mkdir(sysconf, { recursive: true });
    const own = join(dir, 'own-service.conf');
    await writeFile(own, service);
    await writeFile(join(sysconf, 'pg_service.conf'), service);
    const listed = (r: { stdout: string }): string[] => (JSON.parse(r.stdout) as { job_name: string }[]).map((row) => row.job_name);
    // A run only this database holds: the service must lead to it.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`INSERT INTO efa.runs (run_id, job_name, job_hash, source, status) VALUES (900045, 'pgservice-marker', 'h', 'pgservice-marker', 'succeeded')`);
    } finally {
      await c.end();
    }

    const byFile = await runIn(dir, ['runs', '--json'], { PGSERVICE: 'efa_test', PGSERVICEFILE: own, HOME: home });
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(listed(byFile)).toContain('pgservice-marker');
    const userHome = join(dir, 'user-home');
    await mkdir(userHome, { recursive: true });
    await writeFile(join(userHome, '.pg_service.conf'), service);
    const byHome = await runIn(dir, ['runs', '--json'], { PGSERVICE: 'efa_test', HOME: userHome });
    expect(byHome.code, byHome.stderr).toBe(0);
    expect(listed(byHome)).toContain('pgservice-marker');
    const bySysconf = await runIn(dir, ['runs', '--json'], { PGSERVICE: 'efa_test', HOME: home, PGSYSCONFDIR: sysconf });
    expect(bySysconf.code, bySysconf.stderr).toBe(0);
    expect(listed(bySysconf)).toContain('pgservice-marker');
    // The password comes from the file: never printed.
    if (pgEnv.PGPASSWORD === secret) expect(byFile.stdout + byFile.stderr + bySysconf.stderr).not.toContain(secret);

    const missing = await runIn(dir, ['runs', '--log-format', 'json'], { PGSERVICE: 'no_such_service', PGSERVICEFILE: own, HOME: home, PGSYSCONFDIR: sysconf });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PGSERVICE: service \\"no_such_service\\" is defined in none of');
    const hostaddr = await runIn(dir, ['runs', '--log-format', 'json'], { PGSERVICE: 'efa_hostaddr', PGSERVICEFILE: own });
    expect(hostaddr.code).toBe(2);
    expect(hostaddr.stderr).toContain('sets hostaddr, which efa-sync cannot pass to its PostgreSQL driver');
    const noFile = await runIn(dir, ['runs', '--log-format', 'json'], { PGSERVICE: 'efa_test', PGSERVICEFILE: join(dir, 'absent.conf') });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('PGSERVICEFILE:');
  }, 120_000);
});
