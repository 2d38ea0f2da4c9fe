import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { relationDefinitions } from '../relations/definitions.js';
import { backfillRunScopes } from './backfill.js';
import type { Db } from './connect.js';
import { applyDefinitions, readDefinitionFiles } from './definitions.js';
import { LEGACY_CHECKSUMS } from './legacy-checksums.js';
import { bootstrapLockWaitS, explainLockTimeout, migrationLockKey, migrationLockStatement, sqlDir } from './migration-lock.js';
import { syncRelationTables } from './table-sync.js';

export { bootstrapLockWaitS, sqlDir };

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly script: string;
  readonly checksum: string;
  /** The checksums an applied migration may have recorded: the file's, and those of its released bytes before (legacy-checksums.ts). */
  readonly accepted: readonly string[];
}

/** An applied migration whose file changed afterwards: the schema may not be what the file says. */
export class MigrationChecksumError extends Error {
  override name = 'MigrationChecksumError';
  constructor(readonly version: number, readonly file: string) {
    super(`migration ${file} was changed after it was applied (version ${version}); add a new migration instead`);
  }
}

const fileNamePattern = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export async function readMigrations(dir = sqlDir): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => fileNamePattern.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const [, version, name] = fileNamePattern.exec(file) as RegExpExecArray;
      const script = await readFile(join(dir, file), 'utf8');
      const checksum = createHash('sha256').update(script).digest('hex');
      return { version: Number(version), name: name ?? file, script, checksum, accepted: [checksum, ...(LEGACY_CHECKSUMS[Number(version)] ?? [])] };
    }),
  );
}

export interface MigrateResult {
  readonly applied: readonly number[];
  readonly current: number;
  /** The definitions (views, functions, triggers) applied again because they, or one they read, changed. */
  readonly definitions: readonly string[];
}

/**
 * Applies the sql/ migrations not yet applied, each in its own transaction, recording them; then brings the
 * relation tables and the definitions of `dir` (views/, functions/) up to date. Idempotent.
 */
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
      if (!m.accepted.includes(done.checksum)) throw new MigrationChecksumError(m.version, `${String(m.version).padStart(3, '0')}_${m.name}.sql`);
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
  // The relation modules describe today's tables: a folder of older migrations (a test building an old
  // warehouse) gets neither their tables synced nor their definitions, only the definitions of that folder.
  if (dir === sqlDir) await syncRelationTables(db);
  const definitions = [...(await readDefinitionFiles(dir)), ...(dir === sqlDir ? relationDefinitions() : [])];
  const { applied: appliedDefinitions } = await applyDefinitions(db, definitions);
  // Version 4 introduced run scopes; runs written before it get theirs from the job they recorded.
  if (applied.includes(4)) await backfillRunScopes(db.kysely);
  if (applied.includes(28)) await rollUpStoredSnapshots(db);
  const row = await sql<{ v: number | null }>`SELECT max(version) AS v FROM efa.schema_migrations`.execute(db.kysely);
  return { applied, current: row.rows[0]?.v ?? 0, definitions: appliedDefinitions };
}

/**
 * Version 28 keeps hourly roll-ups that the snapshot writer adds to with efa.rollup_snapshot; the
 * snapshots stored before it are added here, oldest first (so the latest positions end with the
 * newest), once the function exists: it is a definition, applied after the numbered migrations.
 */
async function rollUpStoredSnapshots(db: Db): Promise<void> {
  await db.exec(`DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT run_id, kind FROM efa.snapshots WHERE NOT rolled_up ORDER BY taken_at, run_id LOOP
    PERFORM efa.rollup_snapshot(r.run_id, r.kind);
  END LOOP;
END $$;`);
}
