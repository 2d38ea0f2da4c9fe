import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { packageRoot } from '../util/package-root.js';
import { relationDefinitions } from '../relations/definitions.js';
import { backfillRunScopes } from './backfill.js';
import type { Db } from './connect.js';
import { LEGACY_CHECKSUMS } from './legacy-checksums.js';
import { advisoryKeyHolder, LockedError } from './lock.js';
import { syncRelationTables } from './table-sync.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly script: string;
  readonly checksum: string;
}

/** An applied migration whose file changed afterwards: the schema may not be what the file says. */
export class MigrationChecksumError extends Error {
  override name = 'MigrationChecksumError';
  constructor(readonly version: number, readonly file: string) {
    super(`migration ${file} was changed after it was applied (version ${version}); add a new migration instead`);
  }
}

const fileNamePattern = /^(\d{3})_([a-z0-9_]+)\.sql$/;
export const sqlDir = join(packageRoot, 'sql');

export async function readMigrations(dir = sqlDir): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => fileNamePattern.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const [, version, name] = fileNamePattern.exec(file) as RegExpExecArray;
      const script = await readFile(join(dir, file), 'utf8');
      return { version: Number(version), name: name ?? file, script, checksum: createHash('sha256').update(script).digest('hex') };
    }),
  );
}

// Any fixed number shared by all efa-sync processes: the lock of a database without efa.schema_migrations
// yet (any role may take an advisory key, so that wait is bounded and names the holder).
const migrationLockKey = 4_711_001;
/** How long the first migrate of a database waits for the fixed key before naming who holds it. */
export const bootstrapLockWaitS = 60;

/**
 * The statement that serialises migrations: from version 20 on an EXCLUSIVE lock on a table in
 * efa_private, which a reader can neither take nor block (sql/020); before, the fixed advisory key,
 * waited for at most bootstrapLockWaitS.
 */
async function migrationLockStatement(db: Db): Promise<string> {
  const r = await sql<{ t: string | null }>`SELECT to_regclass('efa_private.migration_lock')::text AS t`.execute(db.kysely);
  return r.rows[0]?.t ? 'LOCK TABLE efa_private.migration_lock IN EXCLUSIVE MODE;' : `SET LOCAL lock_timeout = '${bootstrapLockWaitS}s'; SELECT pg_advisory_xact_lock(${migrationLockKey});`;
}

/** A wait for the fixed key that ran out: exit 4, naming the session that holds it (pg_locks, pg_stat_activity). */
async function explainLockTimeout(db: Db, error: unknown): Promise<never> {
  if ((error as { code?: unknown } | null)?.code !== '55P03') throw error;
  const holder = await advisoryKeyHolder(db, migrationLockKey).catch(() => undefined);
  throw new LockedError(
    `migrations wait for advisory lock ${migrationLockKey}, held for more than ${bootstrapLockWaitS} s by ${holder ?? 'another session'}: ` +
      'if that is no efa-sync migrate, end it (SELECT pg_terminate_backend(<pid>)) and run again; once migration 20 is applied no reader can take this lock',
  );
}

export interface MigrateResult {
  readonly applied: readonly number[];
  readonly current: number;
}

/** Applies the sql/ migrations not yet applied, each in its own transaction, recording them. Idempotent. */
export async function migrate(db: Db, dir = sqlDir): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  // Under the migration lock: two first runs on an empty database would both create the schema,
  // and IF NOT EXISTS does not make that safe (one fails on the catalog's unique index).
  // A database that has the table takes no lock at all here: an up-to-date one none anywhere.
  const bootstrapped = await sql<{ t: string | null }>`SELECT to_regclass('efa.schema_migrations')::text AS t`.execute(db.kysely);
  if (!bootstrapped.rows[0]?.t) {
    await db
      .exec(`BEGIN;
    SET LOCAL lock_timeout = '${bootstrapLockWaitS}s';
    SELECT pg_advisory_xact_lock(${migrationLockKey});
    CREATE SCHEMA IF NOT EXISTS efa;
    CREATE TABLE IF NOT EXISTS efa.schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
    );
    COMMIT;`)
      .catch((e: unknown) => explainLockTimeout(db, e));
  }
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.kysely.selectFrom('efa.schema_migrations').select(['checksum']).where('version', '=', m.version).executeTakeFirst();
    if (done) {
      if (done.checksum !== m.checksum && !LEGACY_CHECKSUMS[m.version]?.includes(done.checksum)) throw new MigrationChecksumError(m.version, `${String(m.version).padStart(3, '0')}_${m.name}.sql`);
      continue;
    }
    // One script per transaction; the lock and the re-check make a concurrent migrate a no-op.
    const lock = await migrationLockStatement(db);
    const appliedNow = await db.exec(`BEGIN;
      ${lock}
      DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM efa.schema_migrations WHERE version = ${m.version}) THEN
          RAISE EXCEPTION 'efa-sync: migration ${m.version} applied concurrently';
        END IF;
      END $$;
      ${m.script}
      ;
      INSERT INTO efa.schema_migrations (version, name, checksum) VALUES (${m.version}, '${m.name}', '${m.checksum}');
    COMMIT;`).then(
      () => true,
      (e: unknown) => {
        if (e instanceof Error && e.message.includes('applied concurrently')) return false;
        return explainLockTimeout(db, e);
      },
    );
    if (appliedNow) applied.push(m.version);
  }
  // Version 4 introduced run scopes; runs written before it get theirs from the job they recorded.
  if (applied.includes(4)) await backfillRunScopes(db.kysely);
  // The relations' declarations describe the schema the package's own migrations leave; a partial
  // set (a test building an older warehouse) gets neither the synced tables nor the definitions.
  if (dir === sqlDir) {
    await syncRelationTables(db);
    // Until the definitions runner (h-defs) records their checksums: the generated definitions are
    // re-applied whenever this call applied a migration, so an up-to-date database runs no DDL.
    if (applied.length > 0) {
      const lock = await migrationLockStatement(db);
      await db.exec(`BEGIN;\n${lock}\n${relationDefinitions().map((d) => d.sql).join('\n')}\nCOMMIT;`);
    }
  }
  const row = await sql<{ v: number | null }>`SELECT max(version) AS v FROM efa.schema_migrations`.execute(db.kysely);
  return { applied, current: row.rows[0]?.v ?? 0 };
}
