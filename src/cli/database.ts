import { sql } from 'kysely';
import { dbUrlFrom, migrate, openDb, readMigrations, type Db } from '../db/index.js';
import { DatabaseUnavailableError, ExitCode, StatementTimeoutError, exitCodeOf, isStatementTimeout } from '../errors.js';
import type { CommonOptions } from './common.js';

/**
 * The database a command works on: opened and migrated from the common options, and watched, so a
 * command's failure while the database stopped answering is reported as the database's (with the
 * run the next run resumes) rather than as whatever statement happened to break.
 */

/** Whether every migration of this build is applied (then opening without PostGIS is enough to read). */
async function schemaIsCurrent(db: Db): Promise<boolean> {
  const table = await sql<{ t: string | null }>`SELECT to_regclass('efa.schema_migrations')::text AS t`.execute(db.kysely);
  if (!table.rows[0]?.t) return false;
  const applied = await sql<{ version: number }>`SELECT version FROM efa.schema_migrations`.execute(db.kysely);
  const versions = new Set(applied.rows.map((r) => Number(r.version)));
  return (await readMigrations()).every((m) => versions.has(m.version));
}

/**
 * Opens the database the options name and brings its schema up to date. `geometry: false` is for
 * commands that read no geometry: an embedded database then opens without PostGIS (a quarter of the
 * time and a third of the memory), and is reopened with it only when a migration is pending.
 */
export async function openMigratedDb(opts: CommonOptions, options: { geometry?: boolean } = {}): Promise<Db> {
  const url = dbUrlFrom(opts.db);
  if (options.geometry === false && url.startsWith('pglite:')) {
    const light = await openDb(url, { geometry: false });
    const current = await schemaIsCurrent(light).catch(async (e: unknown) => {
      await light.close().catch(() => undefined);
      throw e;
    });
    if (current) return light;
    await light.close();
  }
  const db = await openDb(url);
  try {
    await whenDatabaseLost(db, undefined, () => migrate(db));
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  return db;
}

/** Whether the database answers a trivial query within `timeoutMs`. */
export async function databaseAnswers(db: Db, timeoutMs = 5_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`SELECT 1`.execute(db.kysely).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database a command is working on, for an error that escapes outside its `work` (an 'error' event). */
let databaseInUse: { readonly db: Db; readonly job: string | undefined; readonly runOpened: () => string | undefined } | undefined;

/**
 * Runs `work`; when it fails with an error of no specific exit code and the database no longer
 * answers, the failure is the database's: it becomes a DatabaseUnavailableError naming the
 * database (redacted) and, when `runOpened` names the run the command had opened, that the next run
 * resumes it (exit 1); with no run opened nothing was started (exit 75, try again later). Asking the
 * database instead of guessing from error codes keeps a refused EFA connection from being taken for a
 * lost database.
 */
export async function whenDatabaseLost<T>(db: Db, job: string | undefined, work: () => Promise<T>, runOpened: () => string | undefined = () => undefined): Promise<T> {
  const previous = databaseInUse;
  databaseInUse = { db, job, runOpened };
  try {
    return await work();
  } catch (error) {
    throw await blameDatabase(error, db, job, runOpened());
  } finally {
    databaseInUse = previous;
  }
}

/** For an error that escaped every handler: a DatabaseUnavailableError when the database in use stopped answering. */
export async function explainUncaught(error: unknown): Promise<unknown> {
  return databaseInUse ? blameDatabase(error, databaseInUse.db, databaseInUse.job, databaseInUse.runOpened()) : error;
}

async function blameDatabase(error: unknown, db: Db, job: string | undefined, runId: string | undefined): Promise<unknown> {
  if (exitCodeOf(error) !== ExitCode.failed || error instanceof DatabaseUnavailableError) return error;
  // PostGIS reports statement_timeout's cancel inside a GEOS function (an ST_Buffer of a --where) as
  // "canceling statement due to user request": the same SQLSTATE, 57014. This process cancels its own
  // statements only when it stops on a signal, and then it exits before it gets here.
  if (isStatementTimeout(error) || (db.statementTimeoutMs !== undefined && sqlStateOf(error) === '57014')) {
    return new StatementTimeoutError(db.statementTimeoutMs, job, { cause: error });
  }
  return (await databaseAnswers(db)) ? error : new DatabaseUnavailableError(db.displayUrl, job, { cause: error, runId });
}

function sqlStateOf(error: unknown): unknown {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code !== undefined) return code;
  }
  return undefined;
}
