import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { DatabaseRefusedError, dbUrlFrom, openDb, readMigrations, redactUrl, type Db } from '../db/index.js';
import { createEfaClient } from '../efa/client.js';
import { dialectFor, type DialectName } from '../efa/dialects/index.js';
import { probeUpstream } from '../run/probe.js';
import type { ProbeOutcome } from '../run/probe-outcome.js';
import { ExitCode } from '../errors.js';
import { loadJob, resolveHeaders, type Job, type ResolvedRegion } from '../job/index.js';
import { createFetchTransport, createRequestScheduler, describeError } from '../http/index.js';
import { regionBBox } from '../tiling/index.js';
import { addCommonOptions, type CommonOptions } from './common.js';
import { dialectChecks } from './doctor-dialects.js';
import { terminalText } from '../util/terminal-text.js';
import { catalogueChecks } from '../deployments/doctor-compare.js';

/** `ok` passes; `warn` is worth a look but not a failure; `fail` makes doctor exit 1; `skip` was not checked. */
export type DoctorStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  readonly name: string;
  readonly status: DoctorStatus;
  readonly message: string;
  readonly hint?: string;
}

export interface DoctorReport {
  readonly ok: boolean;
  readonly checks: readonly DoctorCheck[];
}

interface DoctorOptions extends CommonOptions {
  dialect?: DialectName;
  deployment?: string;
}

/** A PGlite URL whose directory holds no database yet: doctor must not create one by looking. */
function missingPgliteDir(url: string): string | undefined {
  if (!url.startsWith('pglite:')) return undefined;
  const location = url.slice('pglite:'.length);
  if (location === '' || location.startsWith('memory')) return undefined;
  const dir = resolve(location);
  return existsSync(join(dir, 'PG_VERSION')) ? undefined : dir;
}

async function databaseChecks(url: string): Promise<DoctorCheck[]> {
  const missing = missingPgliteDir(url);
  if (missing) {
    return [{ name: 'database', status: 'fail', message: `no embedded database at ${missing}`, hint: 'npm start or efa-sync run <job> creates it; or point --db / $DATABASE_URL at your PostGIS' }];
  }
  let db: Db;
  try {
    // Doctor reads the catalog and efa.runs, no geometry: PGlite opens without PostGIS.
    db = await openDb(url, { geometry: false });
    await sql`SELECT 1`.execute(db.kysely);
  } catch (e) {
    // A database that does not exist or a refused role: its own message says what to do.
    if (e instanceof DatabaseRefusedError) return [{ name: 'database', status: 'fail', message: e.message }];
    return [{ name: 'database', status: 'fail', message: `${redactUrl(url)}: ${describeError(e)}`, hint: 'check --db / $DATABASE_URL: host, port, role, password, database name' }];
  }
  const checks: DoctorCheck[] = [];
  try {
    const server = await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(db.kysely);
    checks.push({ name: 'database', status: 'ok', message: `${db.displayUrl} reachable (PostgreSQL ${server.rows[0]?.v ?? '?'})` });

    const postgis = await sql<{ v: string }>`SELECT extversion AS v FROM pg_extension WHERE extname = 'postgis'`.execute(db.kysely);
    const postgisVersion = postgis.rows[0]?.v;
    checks.push(postgisVersion
      ? { name: 'postgis', status: 'ok', message: `PostGIS ${postgisVersion}` }
      : { name: 'postgis', status: 'fail', message: 'PostGIS is not installed in this database', hint: 'as a superuser, once: CREATE EXTENSION postgis; (see docs/operations/database.md, Privileges)' });

    const migrations = await readMigrations();
    const latest = Math.max(0, ...migrations.map((m) => m.version));
    const hasTable = await sql<{ t: string | null }>`SELECT to_regclass('efa.schema_migrations')::text AS t`.execute(db.kysely);
    if (!hasTable.rows[0]?.t) {
      checks.push({ name: 'schema', status: 'warn', message: `no efa schema yet; ${migrations.length} migrations pending`, hint: 'efa-sync migrate (or the first run) creates it' });
      checks.push({ name: 'runs', status: 'skip', message: 'no efa.runs yet' });
      return checks;
    }
    const applied = await sql<{ version: number; checksum: string }>`SELECT version, checksum FROM efa.schema_migrations ORDER BY version`.execute(db.kysely);
    const appliedVersions = new Map(applied.rows.map((r) => [r.version, r.checksum]));
    const pending = migrations.filter((m) => !appliedVersions.has(m.version)).map((m) => m.version);
    const changed = migrations.filter((m) => appliedVersions.has(m.version) && !m.accepted.includes(appliedVersions.get(m.version) as string)).map((m) => m.version);
    const current = Math.max(0, ...appliedVersions.keys());
    if (changed.length > 0) {
      checks.push({ name: 'schema', status: 'fail', message: `version ${current}; migrations ${changed.join(', ')} changed after they were applied`, hint: 'the sql/ files of this efa-sync differ from the ones that built the schema' });
    } else if (current > latest) {
      checks.push({ name: 'schema', status: 'fail', message: `version ${current} is newer than this efa-sync knows (${latest})`, hint: 'upgrade efa-sync' });
    } else if (pending.length > 0) {
      checks.push({ name: 'schema', status: 'warn', message: `version ${current}; ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${pending.join(', ')})`, hint: 'efa-sync migrate, or the next run, applies them' });
    } else {
      checks.push({ name: 'schema', status: 'ok', message: `version ${current}, no migration pending` });
    }

    // Numeric order: the text alias would list run 12 before run 9.
    const running = await sql<{ run_id: string; job_name: string; status: string; started_at: Date }>`
      SELECT run_id::text AS run_id, job_name, status, started_at FROM efa.runs WHERE status IN ('running', 'stopped') ORDER BY runs.run_id`.execute(db.kysely);
    checks.push(running.rows.length === 0
      ? { name: 'runs', status: 'ok', message: 'no run left running or stopped' }
      : {
          name: 'runs', status: 'warn',
          message: `${running.rows.length} run${running.rows.length === 1 ? '' : 's'} to resume: ${running.rows.map((r) => `${r.run_id} (${r.job_name}, ${r.status}, since ${new Date(r.started_at).toISOString()})`).join(', ')}`,
          hint: 'a run in progress, one that was killed (running) or one a signal stopped (stopped): the next run of that job resumes it',
        });
  } finally {
    await db.close();
  }
  return checks;
}

const probeStatus: Readonly<Record<ProbeOutcome, DoctorStatus>> = {
  ok: 'ok', skipped: 'skip', 'not-found': 'fail', unauthorized: 'fail', forbidden: 'fail', unreachable: 'fail',
  timeout: 'fail', 'wrong-dialect': 'fail', 'unexpected-answer': 'fail', failed: 'fail',
};

async function upstreamChecks(jobArg: string, opts: DoctorOptions): Promise<DoctorCheck[]> {
  let loaded;
  try {
    loaded = await loadJob(jobArg, process.cwd(), { baseUrl: opts.baseUrl });
  } catch (e) {
    return [{ name: 'job', status: 'fail', message: describeError(e) }];
  }
  const checks: DoctorCheck[] = [{ name: 'job', status: 'ok', message: `${loaded.job.name} (${loaded.file})` }];
  try {
    const result = await probeUpstream(loaded, { baseUrl: opts.baseUrl, dialect: opts.dialect });
    if (result.checks.length === 0) checks.push({ name: 'upstream', status: 'skip', message: 'the job sweeps no operation' });
    for (const c of result.checks) {
      checks.push({ name: c.operation, status: probeStatus[c.outcome], message: `${result.baseUrl}: ${c.message}`, ...(c.hint ? { hint: c.hint } : {}) });
    }
    if (result.checks.some((c) => c.operation === 'coordInfo' && c.outcome === 'ok')) checks.push(...(await regionTypeChecks(loaded, opts)));
  } catch (e) {
    checks.push({ name: 'upstream', status: 'fail', message: describeError(e) });
  }
  // Which of xml, rapidjson and legacy JSON the deployment answers, per operation, and the one to use.
  checks.push(await dialectChecks(loaded, opts.baseUrl));
  // A job naming a catalogue entry: what its server answers beside what the catalogue says.
  if (loaded.job.deployment !== undefined && opts.deployment === undefined) checks.push(...(await catalogueChecks(loaded.job.deployment, opts.baseUrl ?? loaded.job.baseUrl)));
  return checks;
}

/**
 * The probe asks a few hundred metres at the region's centre, where 0 records is normal. A region the
 * upstream has no data for (a city's job pointed at the simulator, whose world is around Stuttgart)
 * also answers 0 there, and then the run ends with exit 3: one CoordInfo per swept type over the
 * region's whole box (max 1) tells the two apart.
 */
async function regionTypeChecks(loaded: { readonly job: Job; readonly region: ResolvedRegion }, opts: DoctorOptions): Promise<DoctorCheck[]> {
  const { job } = loaded;
  const types = job.sweeps.coord?.types ?? [];
  if (types.length === 0) return [];
  const headers = resolveHeaders(job, process.env);
  const client = createEfaClient({
    baseUrl: opts.baseUrl !== undefined && opts.baseUrl !== '' ? opts.baseUrl : job.baseUrl,
    transport: createFetchTransport(),
    scheduler: createRequestScheduler({
      requestsPerSecond: job.rateLimit.requestsPerSecond, concurrency: Math.min(types.length, 4), retries: 1,
      timeoutMs: Math.min(job.rateLimit.timeoutMs, 15_000),
    }),
    dialect: dialectFor(opts.dialect ?? job.dialect),
    headers,
    ...(job.paths ? { paths: job.paths } : {}),
    secretNames: Object.keys(headers),
  });
  const bbox = regionBBox(loaded.region);
  const found = await Promise.all(types.map(async (type) => {
    try {
      return { type, n: (await client.coordInfoBox({ bbox: [bbox[0], bbox[1], bbox[2], bbox[3]], filters: [{ type }], max: 1 })).records.length };
    } catch (e) {
      return { type, n: undefined, error: describeError(e) };
    }
  }));
  const none = found.filter((f) => f.n === 0).map((f) => f.type);
  const failed = found.filter((f) => f.n === undefined).map((f) => `${f.type}: ${f.error ?? ''}`);
  const box = bbox.map((v) => v.toFixed(4)).join(', ');
  if (failed.length > 0) return [{ name: 'region', status: 'warn', message: `could not ask the region [${box}] for ${failed.join('; ')}` }];
  if (none.length === 0) return [{ name: 'region', status: 'ok', message: `the region [${box}] answers objects of every swept type (${types.join(', ')})` }];
  return [{
    name: 'region', status: 'warn',
    message: `the region [${box}] answers no object of the swept type${none.length === 1 ? '' : 's'} ${none.join(', ')}` +
      (none.length === types.length ? ': a run would store nothing and exit 3' : ''),
    hint: 'is the region where the deployment has data? The simulator\'s world lies in lon 9.05–9.30, lat 48.70–48.85 (docs/simulator.md)',
  }];
}

/** Every check of `efa-sync doctor`: the database, its schema and runs, and a job's upstream when one is named. */
export async function runDoctor(jobArg: string | undefined, opts: DoctorOptions): Promise<DoctorReport> {
  // The database and the upstream are independent: checked at once, so a dead upstream costs no more than a round trip.
  const [database, upstream, catalogue] = await Promise.all([
    databaseChecks(dbUrlFrom(opts.db)),
    jobArg === undefined ? [] : upstreamChecks(jobArg, opts),
    opts.deployment === undefined ? [] : catalogueChecks(opts.deployment, opts.baseUrl),
  ]);
  const checks = [...database, ...upstream, ...catalogue];
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}

/** The report for a terminal: a check's message quotes upstream text (an error body's excerpt), shown escaped. */
export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  return report.checks
    .map((c) => terminalText(`${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}${c.hint && c.status !== 'ok' ? `  → ${c.hint}` : ''}`))
    .join('\n') + '\n';
}

export function registerDoctor(program: Command): void {
  const cmd = program
    .command('doctor [job]')
    .description("check the database (reachable, PostGIS, schema version, pending migrations, runs left running) and, with a job, each operation of its upstream")
    .option('--deployment <id>', "compare what a catalogue deployment's server answers with what the catalogue says (efa-sync deployments show <id>)");
  addCommonOptions(cmd, ['baseUrl', 'dialect', 'db', 'json', 'log']).action(async (jobArg: string | undefined, opts: DoctorOptions) => {
    const report = await runDoctor(jobArg, opts);
    process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatDoctorReport(report));
    process.exitCode = report.ok ? ExitCode.succeeded : ExitCode.failed;
  });
}
