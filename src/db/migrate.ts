import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { packageRoot } from '../util/package-root.js';
import { backfillRunScopes } from './backfill.js';
import type { Db } from './connect.js';

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

// Any fixed number shared by all efa-sync processes: migrations of two processes must not interleave.
const migrationLockKey = 4_711_001;

export interface MigrateResult {
  readonly applied: readonly number[];
  readonly current: number;
}

/** Applies the sql/ migrations not yet applied, each in its own transaction, recording them. Idempotent. */
export async function migrate(db: Db, dir = sqlDir): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  // Under the migration lock: two first runs on an empty database would both create the schema,
  // and IF NOT EXISTS does not make that safe (one fails on the catalog's unique index).
  await db.exec(`BEGIN;
    SELECT pg_advisory_xact_lock(${migrationLockKey});
    CREATE SCHEMA IF NOT EXISTS efa;
    CREATE TABLE IF NOT EXISTS efa.schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
    );
    COMMIT;`);
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.kysely.selectFrom('efa.schema_migrations').select(['checksum']).where('version', '=', m.version).executeTakeFirst();
    if (done) {
      if (done.checksum !== m.checksum) throw new MigrationChecksumError(m.version, `${String(m.version).padStart(3, '0')}_${m.name}.sql`);
      continue;
    }
    // One script per transaction; the lock and the re-check make a concurrent migrate a no-op.
    const appliedNow = await db.exec(`BEGIN;
      SELECT pg_advisory_xact_lock(${migrationLockKey});
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
        throw e;
      },
    );
    if (appliedNow) applied.push(m.version);
  }
  // Version 4 introduced run scopes; runs written before it get theirs from the job they recorded.
  if (applied.includes(4)) await backfillRunScopes(db.kysely);
  const row = await sql<{ v: number | null }>`SELECT max(version) AS v FROM efa.schema_migrations`.execute(db.kysely);
  return { applied, current: row.rows[0]?.v ?? 0 };
}
