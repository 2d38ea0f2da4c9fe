import { join } from 'node:path';
import { sql } from 'kysely';
import { packageRoot } from '../util/package-root.js';
import type { Db } from './connect.js';
import { advisoryKeyHolder, LockedError } from './lock.js';

/** The folder of the numbered migrations and of the definition folders (views/, functions/). */
export const sqlDir = join(packageRoot, 'sql');

// Any fixed number shared by all efa-sync processes: the lock of a database without efa.schema_migrations
// yet (any role may take an advisory key, so that wait is bounded and names the holder).
export const migrationLockKey = 4_711_001;
/** How long the first migrate of a database waits for the fixed key before naming who holds it. */
export const bootstrapLockWaitS = 60;

/**
 * The statement that serialises migrations and definitions: from version 20 on an EXCLUSIVE lock on a
 * table in efa_private, which a reader can neither take nor block (sql/020); before, the fixed advisory
 * key, waited for at most bootstrapLockWaitS.
 */
export async function migrationLockStatement(db: Db): Promise<string> {
  const r = await sql<{ t: string | null }>`SELECT to_regclass('efa_private.migration_lock')::text AS t`.execute(db.kysely);
  return r.rows[0]?.t ? 'LOCK TABLE efa_private.migration_lock IN EXCLUSIVE MODE;' : `SET LOCAL lock_timeout = '${bootstrapLockWaitS}s'; SELECT pg_advisory_xact_lock(${migrationLockKey});`;
}

/** A wait for the fixed key that ran out: exit 4, naming the session that holds it (pg_locks, pg_stat_activity). */
export async function explainLockTimeout(db: Db, error: unknown): Promise<never> {
  if ((error as { code?: unknown } | null)?.code !== '55P03') throw error;
  const holder = await advisoryKeyHolder(db, migrationLockKey).catch(() => undefined);
  throw new LockedError(
    `migrations wait for advisory lock ${migrationLockKey}, held for more than ${bootstrapLockWaitS} s by ${holder ?? 'another session'}: ` +
      'if that is no efa-sync migrate, end it (SELECT pg_terminate_backend(<pid>)) and run again; once migration 20 is applied no reader can take this lock',
  );
}
