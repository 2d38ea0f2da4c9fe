import { sql, type Transaction } from 'kysely';
import type { Database } from './tables.js';

/**
 * What PostgreSQL grants PUBLIC by default and a reader of schema efa does not need: through PUBLIC
 * a role made read-only on efa can still create temporary tables, views and functions, run DO
 * blocks, store large objects and send notifications. The same defaults `serve` revokes in the
 * embedded database (src/serve/role.ts). A role's own privileges cannot remove what PUBLIC grants,
 * so these are revoked from PUBLIC, for the whole database, and granted back to the ETL roles that
 * need them (efa-sync's runs create temporary tables and plpgsql functions).
 */
interface PublicDefault {
  /** What PUBLIC can do, for the report. */
  readonly what: string;
  /** True while PUBLIC still has it. */
  readonly open: (trx: Transaction<Database>) => Promise<boolean>;
  readonly revoke: string;
  /** Given back to an ETL role (its quoted name). */
  readonly grantBack?: (role: string) => string;
}

const holds = async (trx: Transaction<Database>, check: string): Promise<boolean> =>
  (await sql<{ open: boolean }>`SELECT ${sql.raw(check)} AS open`.execute(trx)).rows[0]?.open === true;

/** The large-object functions that create or change one (reading needs SELECT on the object, which a reader is not given). */
const LARGE_OBJECT_WRITERS = `SELECT p.oid::regprocedure AS fn FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace
  AND p.proname ~ '^(lo_(creat|create|import|from_bytea|put|truncate|truncate64|unlink|open)|lowrite)$'`;

const DEFAULTS: readonly PublicDefault[] = [
  {
    what: 'create temporary tables, views and functions (TEMPORARY on the database)',
    open: (trx) => holds(trx, `has_database_privilege('public', current_database(), 'TEMPORARY')`),
    revoke: `DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$`,
    grantBack: (role) => `DO $$ BEGIN EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO ${role.replaceAll("'", "''")}', current_database()); END $$`,
  },
  {
    what: 'create objects in schema public',
    open: (trx) => holds(trx, `has_schema_privilege('public', 'public', 'CREATE')`),
    revoke: 'REVOKE CREATE ON SCHEMA public FROM PUBLIC',
  },
  {
    what: 'run DO blocks and create plpgsql functions (USAGE on language plpgsql)',
    open: (trx) => holds(trx, `has_language_privilege('public', 'plpgsql', 'USAGE')`),
    revoke: 'REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC',
    grantBack: (role) => `GRANT USAGE ON LANGUAGE plpgsql TO ${role}`,
  },
  {
    what: 'store and change large objects (lo_from_bytea, lo_import, lowrite, …)',
    open: (trx) => holds(trx, `EXISTS (SELECT FROM (${LARGE_OBJECT_WRITERS}) f WHERE has_function_privilege('public', f.fn, 'EXECUTE'))`),
    revoke: `DO $$ DECLARE f regprocedure; BEGIN FOR f IN ${LARGE_OBJECT_WRITERS} LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP; END $$`,
  },
  {
    what: 'send notifications with pg_notify() (the NOTIFY statement has no privilege to revoke)',
    open: (trx) => holds(trx, `has_function_privilege('public', 'pg_catalog.pg_notify(text, text)', 'EXECUTE')`),
    revoke: 'REVOKE EXECUTE ON FUNCTION pg_catalog.pg_notify(text, text) FROM PUBLIC',
  },
];

export interface PublicDefaultsResult {
  /** Revoked from PUBLIC by this call. */
  readonly revoked: readonly string[];
  /** Still granted to PUBLIC: not asked to revoke, or the running role may not (the owner or a superuser can). */
  readonly open: readonly string[];
}

/**
 * The PUBLIC defaults still open, each revoked first when `revoke` is set (ETL roles `etlRoles`,
 * quoted, get back what their runs need). A revocation the running role has no right to make
 * changes nothing (PostgreSQL warns) and is reported as open.
 */
export async function publicDefaults(trx: Transaction<Database>, revoke: boolean, etlRoles: readonly string[]): Promise<PublicDefaultsResult> {
  const revoked: string[] = [];
  const open: string[] = [];
  for (const d of DEFAULTS) {
    if (!(await d.open(trx))) continue;
    if (revoke) {
      // The grant back first: revoking PUBLIC's must never leave the ETL role without it, even for a moment of this transaction.
      if (d.grantBack !== undefined) for (const role of etlRoles) await sql.raw(d.grantBack(role)).execute(trx);
      await sql.raw(d.revoke).execute(trx);
      if (!(await d.open(trx))) {
        revoked.push(d.what);
        continue;
      }
    }
    open.push(d.what);
  }
  return { revoked, open };
}
