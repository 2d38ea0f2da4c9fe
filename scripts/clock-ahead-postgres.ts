/**
 * A throw-away PostgreSQL + PostGIS server whose clock is moved ahead with the tests', for
 * `EFA_TEST_CLOCK_POSTGRES=1 npm run test:clock-ahead`: the machine's own server
 * keeps the real clock, so its now() and the CLI's day would disagree as they never do on a machine
 * whose clock is simply later. The server lives in a temp folder, listens on 127.0.0.1 at a free port,
 * runs without fsync (it holds nothing worth keeping) and is removed when the tests end. It needs the
 * server binaries (Debian: postgresql-15 and postgresql-15-postgis-3) and a C compiler; as root, it
 * runs them as the `postgres` user (initdb refuses root). The clock is moved by clock-shim.c, compiled
 * here, not by libfaketime: under libfaketime the server never fires statement_timeout or lock_timeout.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface PostgresAhead {
  readonly url: string;
  stop(): void;
}

/** Why the throw-away server could not be made; test-clock-ahead.ts prints it and exits 2. */
export class PostgresAheadError extends Error {}

function fail(message: string): never {
  throw new PostgresAheadError(message);
}

/** The newest installed server's binaries, or EFA_TEST_PG_BINDIR. */
function serverBinaries(): string {
  const given = process.env['EFA_TEST_PG_BINDIR'];
  if (given !== undefined) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) fail('EFA_TEST_CLOCK_POSTGRES=1 needs a PostgreSQL server installed (Debian: postgresql-15 postgresql-15-postgis-3), or EFA_TEST_PG_BINDIR');
  return join(root, newest, 'bin');
}

/** A port nobody listens on now, from the ones the kernel hands out (a collision would fail loudly at start). */
function freePort(): number {
  const probe = spawnSync(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"], { encoding: 'utf8' });
  const port = Number(probe.stdout.trim());
  if (!Number.isInteger(port) || port <= 0) fail(`no free port found (${probe.stderr.trim()})`);
  return port;
}

/** libfaketime's relative offset (`+365d`, `-30d`, `+2h`; `y` is 365 days) in seconds. */
export function offsetSeconds(offset: string): number {
  const m = /^([+-])(\d+)([smhdy]?)$/.exec(offset);
  if (m === null) fail(`${offset}: give an offset such as +365d or -30d`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, y: 365 * 86_400 }[m[3] as '' | 's' | 'm' | 'h' | 'd' | 'y'];
  return (m[1] === '-' ? -1 : 1) * Number(m[2]) * unit;
}

/** clock-shim.c built into `dir` (readable by the server's user). */
function buildShim(dir: string): string {
  const out = join(dir, 'clock-shim.so');
  const source = fileURLToPath(new URL('./clock-shim.c', import.meta.url));
  const cc = process.env['CC'] ?? 'cc';
  const r = spawnSync(cc, ['-shared', '-fPIC', '-O2', '-o', out, source, '-ldl'], { encoding: 'utf8' });
  if (r.status !== 0) fail(`building ${source} with ${cc} failed (install gcc, or set CC): ${(r.stderr || String(r.error ?? '')).trim().slice(0, 1000)}`);
  return out;
}

export function startPostgresAhead(offset: string): PostgresAhead {
  const bin = serverBinaries();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'efa-sync-pg-ahead-'));
  const data = join(dir, 'data');
  const stop = (): void => {
    if (existsSync(join(data, 'postmaster.pid'))) {
      const pgCtl = [join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'];
      spawnSync(asRoot ? 'runuser' : (pgCtl[0] as string), asRoot ? ['-u', 'postgres', '--', ...pgCtl] : pgCtl.slice(1), { stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return start(bin, dir, data, asRoot, offsetSeconds(offset), stop);
  } catch (error) {
    stop();
    throw error;
  }
}

function start(bin: string, dir: string, data: string, asRoot: boolean, seconds: number, stop: () => void): PostgresAhead {
  if (asRoot) {
    const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const [uid, gid] = [Number(owner.stdout.trim()), Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim())];
    if (owner.status !== 0) fail('running as root, the throw-away server needs the user postgres (created by the Debian package)');
    chownSync(dir, uid, gid);
  }
  const port = freePort();
  const fakeEnv = [`LD_PRELOAD=${buildShim(dir)}`, `EFA_CLOCK_OFFSET_S=${seconds}`];
  const run = (command: string, args: string[]): void => {
    const argv = ['env', ...fakeEnv, join(bin, command), ...args];
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', ...argv], { encoding: 'utf8' }) : spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) fail(`${command} failed (exit ${String(r.status)}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().slice(0, 2000)}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', 'start']);
  const psql = (db: string, sql: string): string => {
    const r = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql], { encoding: 'utf8' });
    if (r.status !== 0) fail(`psql: ${sql}: ${r.stderr.trim()}`);
    return r.stdout.trim();
  };
  psql('postgres', 'CREATE DATABASE efa_sync_ahead');
  psql('efa_sync_ahead', 'CREATE EXTENSION postgis');
  process.stderr.write(`test:clock-ahead: PostgreSQL on 127.0.0.1:${port} (${dir}), its clock says ${psql('postgres', 'SELECT now()')}\n`);
  return { url: `postgres://postgres@127.0.0.1:${port}/efa_sync_ahead`, stop };
}
