import type { PGlite } from '@electric-sql/pglite';
import { entities, qualifiedName, snapshotRelations, type TableDefinition } from '../relations/index.js';
import { hasHistory } from '../relations/history-sql.js';
import { PinnedSettings, type GucModule } from './pinned-settings.js';

/** The role read-only clients run as: a login role that owns nothing, SELECT in schema efa. */
export const SERVE_ROLE = 'efa_serve';
/** The role `--write` clients run as: SELECT, INSERT, UPDATE, DELETE in schema efa; never a superuser. */
export const SERVE_WRITE_ROLE = 'efa_serve_write';

/**
 * What PostgreSQL grants PUBLIC by default and a reader of the warehouse does not need, revoked in
 * the served database (docs/analysts/serve.md lists each with its reason). Only roles other than
 * the superuser are affected, and in an embedded database those are serve's two: efa-sync's own runs
 * (the superuser) are not.
 */
export const REVOKED_FUNCTIONS: readonly string[] = [
  // Run SQL text given as an argument: a statement inside a string is a statement the guard never saw.
  'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema',
  'table_to_xml', 'table_to_xmlschema', 'table_to_xml_and_xmlschema', 'schema_to_xml', 'schema_to_xmlschema',
  'schema_to_xml_and_xmlschema', 'database_to_xml', 'database_to_xmlschema', 'database_to_xml_and_xmlschema',
  'ts_stat', 'ts_rewrite',
  // PGlite has one backend for every client: ending "another" backend ends the server's own.
  'pg_terminate_backend', 'pg_cancel_backend',
  // Writes outside a table (the WAL, the notification queue).
  'pg_logical_emit_message', 'pg_notify',
];

/**
 * What `--write` clients may change rows of: the harvested relations (src/relations: each entity's
 * table and its history, which its trigger writes as the changing role, and the snapshot tables).
 * Never the migration ledger, the runs ledger and its tiles and marks, the locks or the roll-ups
 * efa-sync derives: a client deleting efa.schema_migrations rows stopped every later run.
 */
export function harvestedTables(): string[] {
  const tables: TableDefinition[] = [...Object.values(entities).map((e) => e.table), ...snapshotRelations.map((r) => r.table)];
  return tables.flatMap((t) => (hasHistory(t) ? [qualifiedName(t), `${qualifiedName(t)}_history`] : [qualifiedName(t)]));
}

/** Large objects are writes to the database a role may do without any table privilege. */
const LARGE_OBJECT_FUNCTIONS = String.raw`^(lo_.*|loread|lowrite)$`;

/**
 * The privileged path, run once when serve opens the database (and again after a restart), as
 * PGlite's superuser, before any client statement: the two client roles, their grants, and the
 * revocations above. Large objects the client roles own (none should exist: left by a version of
 * serve before these revocations) are removed, and anything else they own is handed to the
 * superuser, so the roles own nothing.
 */
export async function prepareServeRoles(db: PGlite): Promise<void> {
  const revoked = REVOKED_FUNCTIONS.map((name) => `'${name}'`).join(', ');
  const writable = harvestedTables().map((name) => `'${name}'`).join(', ');
  await db.exec(`
    DO $$
    DECLARE fn regprocedure;
    BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${SERVE_ROLE}') THEN CREATE ROLE ${SERVE_ROLE}; END IF;
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${SERVE_WRITE_ROLE}') THEN CREATE ROLE ${SERVE_WRITE_ROLE}; END IF;
      EXECUTE format('REVOKE TEMPORARY, CREATE ON DATABASE %I FROM PUBLIC, ${SERVE_ROLE}, ${SERVE_WRITE_ROLE}', current_database());
      FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'pg_catalog' AND (p.proname IN (${revoked}) OR p.proname ~ '${LARGE_OBJECT_FUNCTIONS}')
      LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
      END LOOP;
      PERFORM lo_unlink(m.oid) FROM pg_largeobject_metadata m JOIN pg_roles r ON r.oid = m.lomowner
        WHERE r.rolname IN ('${SERVE_ROLE}', '${SERVE_WRITE_ROLE}');
    END $$;
    ALTER ROLE ${SERVE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT;
    ALTER ROLE ${SERVE_WRITE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT;
    REASSIGN OWNED BY ${SERVE_ROLE}, ${SERVE_WRITE_ROLE} TO CURRENT_USER;
    -- PostgreSQL's default, revoked by serve before 0.x: set_config is SET as a function (pgAdmin and pg_dump
    -- call it); what a client must not change is pinned by check hooks (pinned-settings.ts), whichever way it is set.
    GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO PUBLIC;
    REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC;
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    CREATE SCHEMA IF NOT EXISTS efa_serve;
    COMMENT ON SCHEMA efa_serve IS 'efa-sync serve: what clients of a served embedded database run as (see README, serve)';
    CREATE OR REPLACE FUNCTION efa_serve.refuse(reason text) RETURNS void LANGUAGE plpgsql AS
      $fn$ BEGIN RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = reason; END $fn$;
    -- A refusal with its own SQLSTATE (54001: a statement too complex to check).
    CREATE OR REPLACE FUNCTION efa_serve.refuse(reason text, code text) RETURNS void LANGUAGE plpgsql AS
      $fn$ BEGIN RAISE EXCEPTION USING ERRCODE = code, MESSAGE = reason; END $fn$;
    REVOKE ALL ON SCHEMA efa_serve FROM PUBLIC;
    REVOKE ALL ON FUNCTION efa_serve.refuse(text) FROM PUBLIC;
    REVOKE ALL ON FUNCTION efa_serve.refuse(text, text) FROM PUBLIC;
    GRANT USAGE ON SCHEMA efa_serve TO ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
    GRANT EXECUTE ON FUNCTION efa_serve.refuse(text) TO ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
    GRANT EXECUTE ON FUNCTION efa_serve.refuse(text, text) TO ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
    DO $$ BEGIN
      -- A database efa-sync has not migrated yet has no schema efa: then there is nothing to read.
      IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'efa') THEN
        REVOKE ALL ON SCHEMA efa FROM ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
        GRANT USAGE ON SCHEMA efa TO ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
        REVOKE ALL ON ALL TABLES IN SCHEMA efa FROM ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA efa FROM ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
        GRANT SELECT ON ALL TABLES IN SCHEMA efa TO ${SERVE_ROLE}, ${SERVE_WRITE_ROLE};
      END IF;
    END $$;
    DO $$
    DECLARE t regclass; s regclass;
    BEGIN
      FOR t IN SELECT to_regclass(name) FROM unnest(ARRAY[${writable}]::text[]) AS name WHERE to_regclass(name) IS NOT NULL LOOP
        EXECUTE format('GRANT INSERT, UPDATE, DELETE ON TABLE %s TO ${SERVE_WRITE_ROLE}', t);
        -- The table's own identity and serial sequences, which its inserts draw from.
        FOR s IN SELECT d.objid::regclass FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
                 WHERE c.relkind = 'S' AND d.refobjid = t AND d.deptype IN ('a', 'i') LOOP
          EXECUTE format('GRANT USAGE, SELECT ON SEQUENCE %s TO ${SERVE_WRITE_ROLE}', s);
        END LOOP;
      END LOOP;
    END $$;
  `);
}

/**
 * PostgreSQL's SECURITY_LOCAL_USERID_CHANGE (miscadmin.h): the flag a SECURITY DEFINER function runs
 * under. While it is set, PostgreSQL refuses to change `role` and `session_authorization` by any
 * route (SET, RESET, SET LOCAL, set_config, DISCARD ALL): "cannot set parameter … within
 * security-definer function".
 */
const SECURITY_LOCAL_USERID_CHANGE = 1;

interface PostgresInternals {
  _SetUserIdAndSecContext(user: number, context: number): void;
  _GetUserId(): number;
}

/**
 * Who the one PGlite session is, and the only code that changes it. PGlite runs PostgreSQL in
 * single-user mode, whose authenticated user is always the bootstrap superuser (its `username` option
 * is a `SET ROLE` after opening: `RESET ROLE` goes back), and `SET SESSION AUTHORIZATION` is checked
 * against that authenticated user. So the session is made the client role by the superuser
 * (`SET SESSION AUTHORIZATION`, which also makes `is_superuser` off) and then locked with PostgreSQL's
 * own security-definer flag, set from JavaScript through PGlite's exported C function: no statement
 * can clear it (a transaction's abort restores the user and flag it started with, which are these).
 * Only `privileged` unlocks it, from this thread, between clients.
 */
export class ClientIdentity {
  private clientOid = 0;
  private superOid = 0;
  private pinned: PinnedSettings | undefined;

  constructor(
    private readonly db: PGlite,
    readonly role: string,
  ) {}

  private get internals(): PostgresInternals & GucModule {
    return (this.db as unknown as { Module: PostgresInternals & GucModule }).Module;
  }

  /** Run once, as the superuser PGlite opened with: becomes the client role, locked. */
  async enter(readOnly: boolean): Promise<void> {
    this.superOid = this.internals._GetUserId();
    const found = await this.db.query<{ oid: number }>('SELECT oid FROM pg_roles WHERE rolname = $1', [this.role]);
    const oid = found.rows[0]?.oid;
    if (oid === undefined) throw new Error(`role ${this.role} is missing`);
    this.clientOid = oid;
    this.pinned = new PinnedSettings(this.internals, readOnly);
    await this.becomeClient(readOnly);
  }

  private async becomeClient(readOnly: boolean): Promise<void> {
    await this.db.exec(`SET SESSION AUTHORIZATION ${this.role}${readOnly ? '; SET default_transaction_read_only = on' : ''}`);
    this.lock();
  }

  /** Sets the lock again (before each client message: whatever happened, the client is the client role). */
  lock(): void {
    this.pinned?.install();
    this.internals._SetUserIdAndSecContext(this.clientOid, SECURITY_LOCAL_USERID_CHANGE);
  }

  /** The client's statement_timeout in ms (0: none), for serve's watchdog: PGlite never fires it itself. */
  get statementTimeoutMs(): number {
    return this.pinned?.statementTimeoutMs() ?? 0;
  }

  /** True when the session's current user is the client role (checked after each client message). */
  get isClient(): boolean {
    return this.internals._GetUserId() === this.clientOid;
  }

  /** Runs `work` as the superuser, then makes the session the client role again, read-only as asked. */
  async privileged(readOnly: boolean, work: () => Promise<void>): Promise<void> {
    this.pinned?.lift();
    this.internals._SetUserIdAndSecContext(this.superOid, 0);
    try {
      await work();
    } finally {
      // SET SESSION AUTHORIZATION is checked against the authenticated (super) user: it works from any state.
      // A ROLLBACK restores the user the transaction began with: the superuser is set after it.
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
      this.internals._SetUserIdAndSecContext(this.superOid, 0);
      await this.becomeClient(readOnly);
    }
  }
}
