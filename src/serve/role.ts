import type { PGlite } from '@electric-sql/pglite';

/** The role every served client runs as: never a superuser, so PostgreSQL itself refuses file and program access. */
export const SERVE_ROLE = 'efa_serve';

/**
 * Prepares the embedded database for clients, as its superuser, then hands the session to the
 * `efa_serve` role. Why each step:
 *
 * - `efa_serve` is NOSUPERUSER with SELECT in schema efa (and, with `--write`, row changes there);
 *   PostgreSQL then refuses `COPY … TO '<file>'`, `COPY … PROGRAM`, `pg_read_file`, `lo_export`,
 *   `lo_import`, `ALTER SYSTEM` and writes to other tables by its own privilege checks.
 * - PGlite has one session and its authenticated user is the superuser, so the role is a session
 *   setting. The SQL ways back to the superuser are closed here: `set_config` (it can set `role`),
 *   PL/pgSQL (`DO` blocks run any statement text) and temporary objects (a temporary function can
 *   carry a `SET role` clause) are revoked from PUBLIC. The remaining statements (`SET SESSION
 *   AUTHORIZATION`, `RESET …`, `DISCARD ALL`) are refused on the wire (`guard.ts`).
 * - `efa_serve.refuse` raises the wire check's refusal inside PGlite, so a client gets an ordinary
 *   error (SQLSTATE 42501) and a transaction it had open fails as it would on a server.
 *
 * The revocations only affect roles other than the superuser, and in an embedded database the
 * only such role is this one: efa-sync's own runs are unaffected.
 */
export async function enterServeRole(db: PGlite, write: boolean): Promise<void> {
  await db.exec(`
    DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${SERVE_ROLE}') THEN
        CREATE ROLE ${SERVE_ROLE} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
      END IF;
      EXECUTE format('REVOKE TEMPORARY, CREATE ON DATABASE %I FROM PUBLIC, ${SERVE_ROLE}', current_database());
    END $$;
    ALTER ROLE ${SERVE_ROLE} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
    REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    CREATE SCHEMA IF NOT EXISTS efa_serve;
    COMMENT ON SCHEMA efa_serve IS 'efa-sync serve: what clients of a served embedded database run as (see README, serve)';
    CREATE OR REPLACE FUNCTION efa_serve.refuse(reason text) RETURNS void LANGUAGE plpgsql AS
      $fn$ BEGIN RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = reason; END $fn$;
    REVOKE ALL ON SCHEMA efa_serve FROM PUBLIC;
    REVOKE ALL ON FUNCTION efa_serve.refuse(text) FROM PUBLIC;
    GRANT USAGE ON SCHEMA efa_serve TO ${SERVE_ROLE};
    GRANT EXECUTE ON FUNCTION efa_serve.refuse(text) TO ${SERVE_ROLE};
    DO $$ BEGIN
      -- A database efa-sync has not migrated yet has no schema efa: then there is nothing to read.
      IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'efa') THEN
        REVOKE CREATE ON SCHEMA efa FROM ${SERVE_ROLE};
        GRANT USAGE ON SCHEMA efa TO ${SERVE_ROLE};
        GRANT SELECT ON ALL TABLES IN SCHEMA efa TO ${SERVE_ROLE};
        ${
          write
            ? `GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA efa TO ${SERVE_ROLE};
               GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA efa TO ${SERVE_ROLE};`
            : `REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA efa FROM ${SERVE_ROLE};
               REVOKE USAGE, UPDATE ON ALL SEQUENCES IN SCHEMA efa FROM ${SERVE_ROLE};`
        }
      END IF;
    END $$;
    SET SESSION AUTHORIZATION ${SERVE_ROLE};
  `);
}
