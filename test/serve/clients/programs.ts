import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { rawWireChecks } from './raw-wire.js';
import { asciiJson, parseChecks, type Aspect, type Check, type Reference } from './results.js';

/*
 * The clients of the conformance suite: the drivers analysts' tools are built on, from Debian's packages
 * (pgJDBC, psycopg2, SQLAlchemy, psycopg 3, asyncpg, psql, GDAL, pg_dump) and npm (pg), each run as its own
 * program against one `efa-sync serve`, plus a raw wire client. Python is Debian's /usr/bin/python3, which has
 * the Debian drivers (a pyenv python3 first on PATH would not).
 */

const here = fileURLToPath(new URL('.', import.meta.url));
const PYTHON = '/usr/bin/python3';
const JDBC_JAR = '/usr/share/java/postgresql.jar';

export interface ClientSpec {
  readonly id: string;
  readonly label: string;
  readonly aspects: readonly Aspect[];
  readonly note: string;
  /** Why it cannot run on this machine (a runtime or driver missing), else undefined. */
  missing(): string | undefined;
  run(port: number, ref: Reference): Promise<Check[]>;
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment without libpq's PG* variables (PGOPTIONS, PGSSLMODE, PGCLIENTENCODING…): each client says what it sends. */
const withoutLibpqVariables = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('PG')));

/** Runs a program to its end (killed after `timeoutMs`), never throwing: its exit and output are the result. */
export function runProgram(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 180_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: here, env: { ...withoutLibpqVariables(process.env), ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const onPath = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const pythonHas = (modules: string): string | undefined => {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing (Debian's python3)`;
  const r = spawnSync(PYTHON, ['-c', `import ${modules}`], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `${PYTHON} cannot import ${modules}: ${r.stderr.trim().split('\n').at(-1)}`;
};

/** A program that prints check lines; an abnormal end is a failed check of the aspect it was in. */
async function checksOf(file: string, args: readonly string[], ref: Reference): Promise<Check[]> {
  const ran = await runProgram(file, args, { EFA_CLIENTS_REFERENCE: asciiJson(ref) });
  const checks = parseChecks(ran.stdout);
  if (ran.code !== 0) {
    const aspect = checks.at(-1)?.aspect ?? 'connect';
    checks.push({ aspect, check: 'the client program ends normally', ok: false, expected: 'exit 0', got: `exit ${ran.code}: ${ran.stderr.trim().split('\n').slice(-3).join(' / ')}` });
  }
  return checks;
}

const python = (script: string, modules: string, spec: Omit<ClientSpec, 'missing' | 'run'>): ClientSpec => ({
  ...spec,
  missing: () => pythonHas(modules),
  // -B: no __pycache__ beside the scripts (a test never writes into the checkout)
  run: (port, ref) => checksOf(PYTHON, ['-B', script, String(port)], ref),
});

const check = (aspect: Aspect, name: string, expected: unknown, got: unknown): Check => ({ aspect, check: name, ok: String(expected) === String(got), expected: String(expected), got: String(got) });
const conn = (port: number): string[] => ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres'];
const pgConn = (port: number): string => `PG:host=127.0.0.1 port=${port} dbname=postgres user=postgres sslmode=disable`;
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

async function psqlChecks(port: number, ref: Reference): Promise<Check[]> {
  const psql = (args: readonly string[], input?: string): Promise<Ran> => runProgram('psql', ['-X', '-At', ...conn(port), ...args, ...(input ? ['-c', input] : [])]);
  const who = await psql(['-c', 'select current_user']);
  const out = [check('connect', 'connects; select current_user', 'efa_serve', who.stdout.trim() || who.stderr.trim())];
  const dt = await psql(['-c', '\\dt efa.*']);
  out.push(check('introspect', '\\dt efa.* lists pins', true, /^efa\|pins\|table\|/m.test(dt.stdout)));
  const d = await runProgram('psql', ['-X', ...conn(port), '-c', '\\d efa.pins']);
  out.push(check('introspect', '\\d efa.pins: geom is geometry(Point,4326)', true, /geom\s+\| geometry\(Point,4326\)/.test(d.stdout)));
  const five = await psql(['-c', "select 'A'", '-c', "select 'B'", '-c', "select 'C'", '-c', 'select count(*) from efa.pins', '-c', "select name from efa.stops where name like '%ü%' order by stop_id limit 1"]);
  out.push(check('rows', 'five queries in one session', `A B C ${ref.pins} ${ref.umlaut}`, five.stdout.trim().split('\n').join(' ')));
  // One session, ON_ERROR_STOP off (psql's default): an error, the five queries, a failed transaction rolled back.
  const script = ["select 1/0;", "select 'A';", "select 'B';", "select 'C';", 'select count(*) from efa.pins;', "select name from efa.stops where name like '%ü%' order by stop_id limit 1;", 'begin;', 'select 1/0;', "select 'x';", 'rollback;', "select 'D';"].join('\n');
  const after = await runProgram('sh', ['-c', `printf '%s\\n' "$1" | psql -X -At ${conn(port).join(' ')}`, 'sh', script]);
  out.push(check('after_error', 'one session: select 1/0, five queries, a failed transaction, rollback, a query', `A B C ${ref.pins} ${ref.umlaut} BEGIN ROLLBACK D`, after.stdout.trim().split('\n').join(' ')));
  const errors = after.stderr.trim().split('\n').map((l) => l.replace(/^.*ERROR:\s+/, ''));
  out.push(check('after_error', 'the errors psql printed', 'division by zero / division by zero / current transaction is aborted, commands ignored until end of transaction block', errors.join(' / ')));
  // FETCH_COUNT makes psql read through a cursor (DECLARE, then FETCH FORWARD 500 until empty).
  const fetched = await psql(['-v', 'FETCH_COUNT=500', '-c', 'select pin_key from efa.pins order by pin_key']);
  const keys = fetched.stdout.trimEnd().split('\n');
  out.push(check('pool_cursor', 'FETCH_COUNT=500 (a cursor): rows', ref.pins, keys.length));
  out.push(check('pool_cursor', 'FETCH_COUNT=500 (a cursor): md5 of the keys in order', ref.keysMd5, md5(keys.join(','))));
  return out;
}

async function gdalChecks(port: number, ref: Reference): Promise<Check[]> {
  const layers = await runProgram('ogrinfo', ['-ro', '-so', pgConn(port)]);
  const out = [check('connect', 'ogrinfo opens the PostgreSQL driver', 0, layers.code === 0 ? 0 : layers.stderr.trim())];
  out.push(check('introspect', 'layers include efa.pins (Point) and efa.stops', true, /efa\.pins \(Point\)/.test(layers.stdout) && /efa\.stops /.test(layers.stdout)));
  const summary = await runProgram('ogrinfo', ['-ro', '-so', pgConn(port), 'efa.pins']);
  out.push(check('rows', 'ogrinfo efa.pins -so: Feature Count', ref.pins, /Feature Count: (\d+)/.exec(summary.stdout)?.[1] ?? summary.stderr.trim()));
  out.push(check('rows', 'ogrinfo efa.pins -so: Geometry', 'Point', /Geometry: (\w+)/.exec(summary.stdout)?.[1] ?? summary.stderr.trim()));
  const named = await runProgram('ogrinfo', ['-ro', pgConn(port), '-sql', "select name from efa.stops where name like '%ü%' order by stop_id limit 1"]);
  out.push(check('rows', '-sql: a stop name with an umlaut', ref.umlaut, /name \(String\) = (.*)/.exec(named.stdout)?.[1] ?? named.stderr.trim()));
  // Reading a layer goes through a cursor (DECLARE, FETCH 500 at a time).
  const keys = await runProgram('ogrinfo', ['-ro', '-geom=NO', pgConn(port), '-sql', 'select pin_key from efa.pins order by pin_key']);
  const got = [...keys.stdout.matchAll(/pin_key \(String\) = (.*)/g)].map((m) => m[1] ?? '');
  out.push(check('pool_cursor', 'all features read through its cursor: count', ref.pins, got.length));
  out.push(check('pool_cursor', 'all features read through its cursor: md5 of the keys in order', ref.keysMd5, md5(got.join(','))));
  return out;
}

/** pg_dump 15 refuses a newer server after its own session setup: what it must get to is that refusal. */
async function pgDumpChecks(port: number): Promise<Check[]> {
  const dump = await runProgram('pg_dump', [...conn(port), '--schema-only']);
  const said = dump.stderr.trim().split('\n');
  const refusal = said.find((l) => l.includes('aborting because of server version mismatch'));
  return [
    check('connect', 'pg_dump 15 --schema-only gets past its session setup to its version check', 'pg_dump: error: aborting because of server version mismatch', refusal ?? said.join(' / ')),
    check('connect', 'it names both versions', true, said.some((l) => /server version: 18\.\d+; pg_dump version: 15\.\d+/.test(l))),
  ];
}

export const CLIENTS: readonly ClientSpec[] = [
  {
    id: 'pgjdbc',
    label: 'pgJDBC 42.5 (DBeaver, Metabase, Tableau, DataGrip)',
    aspects: ['connect', 'introspect', 'rows', 'after_error', 'pool_cursor'],
    note: "DatabaseMetaData as DBeaver and Metabase call it; `currentSchema=efa`; a PreparedStatement run 10 times (server-prepared); `setFetchSize(500)` with autocommit off and a query between two fetches; Metabase's read-only, READ UNCOMMITTED query connection; errors then checked queries, `rollback()`.",
    missing: () => (!onPath('java') ? 'java is missing (default-jre-headless)' : !existsSync(JDBC_JAR) ? `${JDBC_JAR} is missing (libpostgresql-jdbc-java)` : undefined),
    // Java's source launcher compiles the one file in memory: no build step, no temporary folder.
    run: (port, ref) => checksOf('java', ['-cp', JDBC_JAR, 'Conformance.java', String(port)], ref),
  },
  python('psycopg2_sqlalchemy.py', 'psycopg2, sqlalchemy', {
    id: 'psycopg2',
    label: 'psycopg2 + SQLAlchemy inspector (Superset, pandas)',
    aspects: ['connect', 'introspect', 'rows', 'after_error', 'pool_cursor'],
    note: "`options=-csearch_path=efa`; Superset's inspector calls; a named cursor; an error on a pooled SQLAlchemy connection, then that connection again; pandas' `read_sql` too where pandas is installed (not in CI).",
  }),
  python('psycopg3_cursor.py', 'psycopg', {
    id: 'psycopg3',
    label: 'psycopg 3',
    aspects: ['connect', 'rows', 'after_error', 'pool_cursor'],
    note: 'Queries on the extended protocol; a query prepared by psycopg after 5 runs; a named (server-side) cursor read with `fetchmany(500)`, and one `WITH HOLD`.',
  }),
  python('asyncpg_pool.py', 'asyncpg', {
    id: 'asyncpg',
    label: 'asyncpg',
    aspects: ['connect', 'rows', 'after_error', 'pool_cursor'],
    note: "Connects with client_encoding `'utf-8'`; a pool's acquire and release (release resets the session: `RESET ALL` and more); a prepared statement; a cursor read 500 at a time.",
  }),
  {
    id: 'node-pg',
    label: 'node `pg` (Node.js applications)',
    aspects: ['connect', 'rows', 'after_error', 'pool_cursor'],
    note: 'Five queries queued on one client behind a failing one, on the simple and the extended protocol; a named query run 10 times on a pool with an error midway.',
    missing: () => undefined,
    run: (port, ref) => checksOf(process.execPath, ['--import', 'tsx', 'node-pg.ts', String(port)], ref),
  },
  {
    id: 'psql',
    label: 'psql 15 (and pgcli, libpq)',
    aspects: ['connect', 'introspect', 'rows', 'after_error', 'pool_cursor'],
    note: '`\\dt`, `\\d`; errors in one session; `FETCH_COUNT` (a cursor).',
    missing: () => (onPath('psql') ? undefined : 'psql is missing (postgresql-client)'),
    run: psqlChecks,
  },
  {
    id: 'gdal',
    label: 'GDAL `ogrinfo` (QGIS, ogr2ogr)',
    aspects: ['connect', 'introspect', 'rows', 'pool_cursor'],
    note: 'Layer list, feature count and geometry type, every feature read through its cursor.',
    missing: () => (onPath('ogrinfo') ? undefined : 'ogrinfo is missing (gdal-bin)'),
    run: gdalChecks,
  },
  python('pgadmin_connect.py', 'psycopg', {
    id: 'pgadmin',
    label: "pgAdmin 4's connect (psycopg 3)",
    aspects: ['connect', 'introspect', 'rows', 'after_error'],
    note: "The batch pgAdmin sends on connect (`SET DateStyle=ISO; SET client_min_messages=notice; SELECT set_config('bytea_output','hex',false) …; SET client_encoding='UNICODE'`), its version, database and role queries, a query tool error.",
  }),
  {
    id: 'pg_dump',
    label: 'pg_dump 15',
    aspects: ['connect'],
    note: 'pg_dump refuses a server newer than itself and Debian 12 has only 15: it is checked to get past its first statement, `set_config(\'search_path\', \'\', false)`, to its version check, which says "server version: 18.3; pg_dump version: 15…" and "aborting because of server version mismatch". A dump needs a pg_dump of version 18 or newer.',
    missing: () => (onPath('pg_dump') ? undefined : 'pg_dump is missing (postgresql-client)'),
    run: (port) => pgDumpChecks(port),
  },
  {
    id: 'raw-wire',
    label: 'a raw wire client (what every driver relies on)',
    aspects: ['connect', 'rows', 'after_error', 'pool_cursor'],
    note: 'Counts ReadyForQuery: three pipelined Syncs whose middle one fails get exactly three; a failed batch skipped to its Sync; transaction status in each; a portal fetched 2 rows at a time.',
    missing: () => undefined,
    run: rawWireChecks,
  },
];
