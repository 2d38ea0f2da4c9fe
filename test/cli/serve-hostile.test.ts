import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { startSimulator } from '../../src/sim/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { runCli } from '../helpers/cli.js';
import { inlineJob } from '../helpers/job.js';

/**
 * Issue 22.3: a client of `efa-sync serve` (read-only, the default) tries to destroy or freeze the
 * database, or to get out of the reader role, through a real PostgreSQL client. Every attack is
 * refused, the server keeps answering, normal and QGIS-like reads work, and after `serve` stops the
 * database opens as before, `PG_VERSION` intact. A non-loopback bind needs a password (SCRAM).
 * `serve` is for the embedded database only, so this file runs on PGlite whatever TEST_DATABASE_URL says.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Serving {
  readonly child: ChildProcess;
  readonly port: number;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** `efa-sync serve` as a user starts it (the built CLI); resolves once it prints the QGIS line. */
async function serve(dataDir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'serve', '--db', `pglite:${dataDir}`, '--port', '0', ...args], {
    cwd: root,
    env: { ...process.env, EFA_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!/QGIS:/.test(stdout) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const port = Number(/ on [^ ]+:(\d+);/.exec(stdout)?.[1] ?? NaN);
  if (!Number.isFinite(port)) {
    child.kill('SIGKILL');
    throw new Error(`serve did not start: ${stdout}\n${stderr}`);
  }
  return {
    child,
    port,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Resolves once `done()` holds, polling; gives up after 30 s so that the expectation after it fails with its own message. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe('efa-sync serve against a hostile client', () => {
  let dir: string;
  let dataDir: string;
  let stops: number;
  let pgVersion: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-hostile-'));
    dataDir = join(dir, 'db');
    const sim = await startSimulator({ port: 0, seed: 5, size: 200 });
    const db = await openDb(`pglite:${dataDir}`);
    try {
      const loaded = inlineJob({
        name: 'serve-hostile',
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
    expect(stops).toBeGreaterThan(5);
    pgVersion = await readFile(join(dataDir, 'PG_VERSION'), 'utf8');
  }, 180_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses file, program and role attacks; keeps answering; the database opens afterwards', async () => {
    const served = await serve(dataDir, []);
    // A role asked for at startup is refused as PostgreSQL refuses it to a reader: FATAL, naming it, never dropped silently.
    const asSuperuser = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'postgres', database: 'postgres', options: '-c role=postgres' });
    asSuperuser.on('error', () => undefined);
    const startupRefusal = await asSuperuser.connect().then(() => undefined, (e: unknown) => e as { code?: string; message: string });
    await asSuperuser.end().catch(() => undefined);
    expect(startupRefusal?.code).toBe('42501');
    expect(startupRefusal?.message).toMatch(/"role"/);
    const client = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'postgres', database: 'postgres' });
    const refusals: Record<string, string> = {};
    try {
      await client.connect();
      const attacks: [string, unknown[]?][] = [
        [`COPY (SELECT 'garbage') TO '${join(dataDir, 'PG_VERSION')}'`],
        [`COPY (SELECT 1) TO PROGRAM 'sleep 1000'`],
        [`COPY efa.runs FROM '/etc/passwd'`],
        ['SET SESSION AUTHORIZATION postgres'],
        [`SELECT 1; RESET SESSION AUTHORIZATION; COPY (SELECT 'x') TO '${join(dataDir, 'PG_VERSION')}'`],
        ['SET /* hidden */ "role" TO postgres'],
        [`SET U&"\\0072ole" = postgres`],
        ["SELECT pg_catalog.set_config('session_authorization', 'postgres', false)"],
        ["SELECT query_to_xml('SELECT set_config(''role'', ''postgres'', false)', true, true, '')"],
        ["DO $$ BEGIN EXECUTE 'RESET SESSION AUTHORIZATION'; END $$"],
        ['SELECT pg_read_file($1)', ['PG_VERSION']],
        // Through the extended protocol (Parse/Bind): refused with the statement's parameters kept.
        ["SELECT set_config('session_authorization', $1, false)", ['postgres']],
        ['SET SESSION AUTHORIZATION DEFAULT', []],
        ["SELECT pg_ls_dir('.')"],
        ["SELECT lo_import('/etc/passwd')"],
        ['SET default_transaction_read_only = off; SELECT lo_from_bytea(0, $$junk$$::bytea)'],
        [`SELECT lo_export(lo_create(0), '${join(dataDir, 'PG_VERSION')}')`],
        ['ALTER SYSTEM SET work_mem = 99999'],
        ["CREATE FUNCTION pg_temp.f() RETURNS int LANGUAGE sql SET role = 'postgres' AS 'SELECT 1'"],
        ['UPDATE efa.stops SET name = name'],
        ['SET default_transaction_read_only = off; DELETE FROM efa.stops'],
        ['DROP TABLE efa.stops'],
      ];
      for (const [query, values] of attacks) {
        const outcome = await client.query(query, values).then(
          () => 'ran',
          (e: Error) => e.message,
        );
        refusals[query] = outcome;
      }
      for (const [query, outcome] of Object.entries(refusals)) {
        expect(outcome, query).not.toBe('ran');
        expect(outcome, query).toMatch(/efa-sync serve:|permission denied/);
      }
      // DISCARD ALL (a pool's reset) is served as the client's own reset: it runs and leaves the role and read-only as they were.
      await client.query('DISCARD ALL');
      const afterDiscard = await client.query<{ u: string; ro: string }>("SELECT current_user AS u, current_setting('default_transaction_read_only') AS ro");
      expect(afterDiscard.rows[0]).toEqual({ u: 'efa_serve', ro: 'on' });
      // Still the reader, still answering, QGIS-like reads work.
      const who = await client.query<{ u: string; s: string; sup: string }>("SELECT current_user AS u, session_user AS s, current_setting('is_superuser') AS sup");
      expect(who.rows[0]).toEqual({ u: 'efa_serve', s: 'efa_serve', sup: 'off' });
      const count = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL AND name = ANY ($1)', [['x']]);
      expect(count.rows[0]?.n).toBe(0);
      const all = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL');
      expect(all.rows[0]?.n).toBe(stops);
      const layers = await client.query<{ f_table_name: string }>(
        "SELECT f_table_name, f_geometry_column, type, srid FROM public.geometry_columns WHERE f_table_schema = 'efa' ORDER BY 1",
      );
      expect(layers.rows.map((r) => r.f_table_name)).toContain('stops');
      const privileges = await client.query<{ ok: boolean }>("SELECT has_table_privilege('efa.stops', 'SELECT') AS ok");
      expect(privileges.rows[0]?.ok).toBe(true);
      await client.query('BEGIN READ ONLY');
      await client.query('SET application_name = $$QGIS$$');
      await client.query('DECLARE qgis BINARY CURSOR FOR SELECT st_asbinary(geom, $$NDR$$), stop_id FROM efa.stops WHERE geom && st_makeenvelope(-180, -90, 180, 90, 4326)');
      const fetched = await client.query('FETCH FORWARD 2000 FROM qgis');
      expect(fetched.rowCount).toBe(stops);
      await client.query('CLOSE qgis');
      await client.query('COMMIT');
      const extent = await client.query<{ e: string }>('SELECT ST_Extent(geom)::text AS e FROM efa.stops');
      expect(extent.rows[0]?.e).toMatch(/^BOX\(/);
      const version = await client.query<{ v: string }>('SELECT postgis_lib_version() AS v');
      expect(version.rows[0]?.v).toMatch(/^3\./);
    } finally {
      await client.end().catch(() => undefined);
      expect(await served.stop()).toBe(0);
    }
    expect(served.stderr()).toMatch(/refused from 127\.0\.0\.1:\d+: efa-sync serve: COPY to or from a program is refused/);
    expect(await readFile(join(dataDir, 'PG_VERSION'), 'utf8')).toBe(pgVersion);
    const db = await openDb(`pglite:${dataDir}`);
    try {
      const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL`.execute(db.kysely);
      expect(n.rows[0]?.n).toBe(stops);
    } finally {
      await db.close();
    }
  }, 180_000);

  it('refuses a network bind without a password; with one, asks every client for it and warns', async () => {
    const open = await runCli(['serve', '--db', `pglite:${dataDir}`, '--host', '0.0.0.0', '--port', '0'], { EFA_SERVE_PASSWORD: '' });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/--host 0\.0\.0\.0 opens the database to the network, and there is no password: set one in \$EFA_SERVE_PASSWORD/);
    expect(existsSync(`${dataDir}.efa-sync.lock`)).toBe(false);
    const unset = await runCli(['serve', '--db', `pglite:${dataDir}`, '--host', '0.0.0.0', '--password-env', 'NO_SUCH_SERVE_PASSWORD']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--password-env NO_SUCH_SERVE_PASSWORD: that variable is not set/);

    const password = 'served-Secret-7';
    const served = await serve(dataDir, ['--host', '0.0.0.0', '--password-env', 'MY_SERVE_PASSWORD'], { MY_SERVE_PASSWORD: password });
    try {
      // stdout and stderr are two pipes: the warning may arrive after the address line that said serve is up.
      const warning = /serving on 0\.0\.0\.0: every machine that reaches port \d+ can try the password/;
      await until(() => warning.test(served.stderr()) || served.child.exitCode !== null);
      expect(served.stderr()).toMatch(warning);
      const connectWith = async (pw: string | undefined): Promise<string> => {
        const c = new pg.Client({ host: '127.0.0.1', port: served.port, user: 'anyone', database: 'postgres', ...(pw === undefined ? {} : { password: pw }) });
        try {
          await c.connect();
          const r = await c.query<{ u: string }>('SELECT current_user AS u');
          return `in as ${r.rows[0]?.u ?? '?'}`;
        } catch (e) {
          return (e as Error).message;
        } finally {
          await c.end().catch(() => undefined);
        }
      };
      expect(await connectWith('wrong')).toMatch(/password authentication failed for user "anyone"/);
      expect(await connectWith('')).not.toMatch(/^in as/);
      expect(await connectWith(password)).toBe('in as efa_serve');
    } finally {
      expect(await served.stop(), served.stderr()).toBe(0);
    }
    expect(served.stderr()).not.toContain(password);
  }, 180_000);
});
