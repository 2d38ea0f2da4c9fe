import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { ConfigError } from '../errors.js';
import type { Db } from './connect.js';
import { publicDefaults } from './grant-public.js';
import type { Database } from './tables.js';

export interface GrantReaderOptions {
  /** LOGIN with this password (from $EFA_READER_PASSWORD); otherwise a new role is NOLOGIN. */
  readonly login?: boolean;
  readonly password?: string | undefined;
  /**
   * Revoke from PUBLIC what PostgreSQL grants every role by default and a reader does not need
   * (temporary objects, DO blocks, large objects, pg_notify, CREATE in schema public), for the whole
   * database, giving the ETL roles back what their runs use (grant-public.ts).
   */
  readonly revokePublic?: boolean;
}

export interface GrantReaderResult {
  readonly role: string;
  /** The role did not exist and was created. */
  readonly created: boolean;
  /** LOGIN and the password were set by this call. */
  readonly login: boolean;
  /** Roles whose future tables in efa the reader may SELECT (ALTER DEFAULT PRIVILEGES FOR ROLE …). */
  readonly defaultsFor: readonly string[];
  /**
   * Write privileges in schema efa the role held before and no longer holds, e.g.
   * `INSERT on efa.pins`, `CREATE on schema efa`, `INSERT on future tables created by etl in efa`.
   */
  readonly revoked: readonly string[];
  /** What PUBLIC (so the reader too) could still do beyond reading efa: open unless revokePublic, and what the running role may not revoke. */
  readonly publicOpen: readonly string[];
  /** Revoked from PUBLIC by this call (revokePublic). */
  readonly publicRevoked: readonly string[];
}

/**
 * The role could still write in schema efa after its own privileges were revoked: it owns objects
 * there, is a member of a role that can write, or PUBLIC / global default privileges let it.
 * Nothing was changed (the transaction rolled back). `holds` lists each way, for the message.
 */
export class ReaderNotReadOnlyError extends ConfigError {
  override name = 'ReaderNotReadOnlyError';

  constructor(
    readonly role: string,
    readonly holds: readonly string[],
  ) {
    super(
      `<role>: "${role}" would still be able to write in schema efa, so nothing was changed:\n` +
        holds.map((line) => `  - ${line}`).join('\n') +
        '\nRemove these yourself (ALTER … OWNER TO the ETL role, REVOKE <role> FROM …, REVOKE … FROM PUBLIC) or name a new reader role',
      'role',
    );
  }
}

const rolePattern = /^[a-z_][a-z0-9_]{0,62}$/;
const reservedRoles = new Set(['public', 'none', 'all', 'current_user', 'session_user', 'current_role', 'user']);

/** A role name efa-sync accepts: a lower-case SQL identifier, not reserved, not a pg_ system role. */
export function validateRoleName(role: string): string {
  if (!rolePattern.test(role) || role.startsWith('pg_') || reservedRoles.has(role)) {
    throw new ConfigError(
      `<role>: "${role}" is not an accepted role name: use 1-63 lower-case letters, digits and _, starting with a letter or _, not pg_… or a reserved name`,
      'role',
    );
  }
  return role;
}

/** A double-quoted identifier; callers validate first, the quoting is belt and braces. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

// RFC 4013 (SASLprep) mappings PostgreSQL applies before hashing: non-ASCII spaces -> space, some
// invisible characters -> nothing, then NFKC. The prohibited-character checks are not repeated.
const nonAsciiSpace = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
const mappedToNothing = /[\u00AD\u034F\u1806\u180B-\u180D\u200B-\u200D\u2060\uFE00-\uFE0F\uFEFF]/g;

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802/7677), computed here so the
 * cleartext password never reaches the server, its statement log or pg_stat_activity.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const prepared = password.replace(nonAsciiSpace, ' ').replace(mappedToNothing, '').normalize('NFKC');
  const salted = pbkdf2Sync(prepared, salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();
  const storedKey = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

async function targetRolesForDefaults(trx: Transaction<Database>): Promise<string[]> {
  // Future tables are created by whoever migrates: the owner of schema efa, usually the ETL role.
  const r = await sql<{ name: string }>`
    SELECT DISTINCT name FROM (
      SELECT current_user::text AS name
      UNION
      SELECT pg_get_userbyid(nspowner)::text FROM pg_namespace
      WHERE nspname = 'efa' AND pg_has_role(current_user, nspowner, 'MEMBER')
    ) t ORDER BY name`.execute(trx);
  return r.rows.map((row) => row.name);
}

/** Privileges that change data or structure, by kind of object. MAINTAIN exists from PostgreSQL 17. */
const TABLE_WRITE = ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'] as const;
const SEQUENCE_WRITE = ['USAGE', 'UPDATE'] as const;

/**
 * Every way `principal` (a role name, or `public`) can write in schema efa now: table, column and
 * sequence privileges, CREATE on the schema, ownership, and default privileges for future objects.
 */
async function writeAccess(trx: Transaction<Database>, principal: string, tableWrite: readonly string[]): Promise<string[]> {
  const isPublic = principal === 'public';
  const r = await sql<{ what: string }>`
    WITH me AS (SELECT CASE WHEN ${isPublic} THEN 0::oid ELSE (SELECT oid FROM pg_roles WHERE rolname = ${principal}) END AS oid),
    access (rank, what) AS (
    SELECT 3, format('%s on %I.%I', p.priv, n.nspname, c.relname)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    CROSS JOIN unnest(${tableWrite}::text[]) AS p(priv)
    WHERE n.nspname = 'efa' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND CASE WHEN p.priv IN ('INSERT', 'UPDATE', 'REFERENCES') THEN has_any_column_privilege(${principal}, c.oid, p.priv)
               ELSE has_table_privilege(${principal}, c.oid, p.priv) END
    UNION ALL
    SELECT 3, format('%s on sequence %I.%I', p.priv, n.nspname, c.relname)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    CROSS JOIN unnest(${[...SEQUENCE_WRITE]}::text[]) AS p(priv)
    WHERE n.nspname = 'efa' AND c.relkind = 'S' AND has_sequence_privilege(${principal}, c.oid, p.priv)
    UNION ALL
    SELECT 2, 'CREATE on schema efa' WHERE has_schema_privilege(${principal}, 'efa', 'CREATE')
    UNION ALL
    SELECT 1, 'owns schema efa' FROM pg_namespace, me WHERE nspname = 'efa' AND nspowner = me.oid
    UNION ALL
    SELECT 1, format('owns %I.%I', n.nspname, c.relname)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, me
    WHERE n.nspname = 'efa' AND c.relowner = me.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
    UNION ALL
    SELECT 2, format('%s on future %s created by %s %s', a.privilege_type,
                  CASE d.defaclobjtype WHEN 'r' THEN 'tables' ELSE 'sequences' END,
                  pg_get_userbyid(d.defaclrole),
                  CASE WHEN d.defaclnamespace = 0 THEN 'in any schema' ELSE 'in efa' END)
    FROM pg_default_acl d CROSS JOIN LATERAL aclexplode(d.defaclacl) a, me
    WHERE a.grantee = me.oid
      AND (d.defaclnamespace = 0 OR d.defaclnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'efa'))
      AND ((d.defaclobjtype = 'r' AND a.privilege_type = ANY (${tableWrite}::text[]))
        OR (d.defaclobjtype = 'S' AND a.privilege_type = ANY (${[...SEQUENCE_WRITE]}::text[]))))
    -- Ownership first: it explains the privileges that follow from it.
    SELECT what FROM access ORDER BY rank, what`.execute(trx);
  return r.rows.map((row) => row.what);
}

/** Roles `role` is a member of (directly or not), whose rights it can take on with SET ROLE. */
async function memberships(trx: Transaction<Database>, role: string): Promise<string[]> {
  const r = await sql<{ name: string }>`
    SELECT rolname::text AS name FROM pg_roles WHERE rolname <> ${role} AND pg_has_role(${role}, oid, 'MEMBER') ORDER BY 1`.execute(trx);
  return r.rows.map((row) => row.name);
}

/** At most a few items of a long list, and how many more there are. */
function summarise(items: readonly string[], shown = 4): string {
  const head = items.slice(0, shown).join(', ');
  return items.length > shown ? `${head} (and ${items.length - shown} more)` : head;
}

/**
 * Ways `role` can still write in efa that revoking its own privileges cannot remove: ownership,
 * memberships, PUBLIC, global default privileges, and (before PostgreSQL 16) CREATEROLE, which
 * lets a role grant itself any other non-superuser role.
 */
async function remainingWriteAccess(trx: Transaction<Database>, role: string, tableWrite: readonly string[], version: number): Promise<string[]> {
  const holds: string[] = [];
  const own = await writeAccess(trx, role, tableWrite);
  if (own.length > 0) holds.push(`itself (own and inherited rights): ${summarise(own)}`);
  for (const member of await memberships(trx, role)) {
    const via = await writeAccess(trx, member, tableWrite);
    if (via.length > 0) holds.push(`through its membership in ${member}: ${summarise(via)}`);
  }
  const everyone = await writeAccess(trx, 'public', tableWrite);
  if (everyone.length > 0) holds.push(`through PUBLIC: ${summarise(everyone)}`);
  const attrs = await sql<{ createrole: boolean }>`SELECT rolcreaterole AS createrole FROM pg_roles WHERE rolname = ${role}`.execute(trx);
  if (version < 160000 && attrs.rows[0]?.createrole === true) holds.push('CREATEROLE (it can grant itself the ETL role)');
  return holds;
}

/**
 * Makes `role` a read-only reader of schema efa, whatever it could do before: creates it if needed
 * (NOLOGIN, or LOGIN with `opts.password`); revokes every write privilege it holds in efa (on
 * tables, views, columns and sequences, CREATE on the schema, and default privileges for future
 * objects); grants USAGE on the schema, SELECT on every table, view and materialized view in it,
 * and SELECT on tables created there later. When the role could still write another way (it owns
 * objects there, is a member of a writing role, PUBLIC may write) it changes nothing and throws
 * `ReaderNotReadOnlyError` listing each way.
 */
export async function grantReader(db: Db, role: string, opts: GrantReaderOptions = {}): Promise<GrantReaderResult> {
  const name = validateRoleName(role);
  const login = opts.login === true;
  if (login && !opts.password) throw new ConfigError('--login needs a password in $EFA_READER_PASSWORD', 'EFA_READER_PASSWORD');
  const r = quoteIdent(name);
  return db.kysely.transaction().execute(async (trx) => {
    const schema = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'efa'`.execute(trx);
    if (schema.rows[0]?.n !== 1) throw new ConfigError('schema efa does not exist: run efa-sync migrate (as the ETL role) first', 'db');
    const existing = await sql<{ super: boolean; me: boolean }>`
      SELECT rolsuper AS super, rolname = current_user AS me FROM pg_roles WHERE rolname = ${name}`.execute(trx);
    const found = existing.rows[0];
    if (found?.me) throw new ConfigError(`<role>: "${name}" is the role running this command; name a separate reader role`, 'role');
    if (found?.super) throw new ConfigError(`<role>: "${name}" is a superuser and cannot be made read-only`, 'role');
    const versionRow = await sql<{ v: number }>`SELECT current_setting('server_version_num')::int AS v`.execute(trx);
    const version = versionRow.rows[0]?.v ?? 0;
    const tableWrite: string[] = version >= 170000 ? [...TABLE_WRITE, 'MAINTAIN'] : [...TABLE_WRITE];

    const password = login ? ` LOGIN PASSWORD '${scramSha256Verifier(opts.password ?? '')}'` : '';
    if (!found) await sql.raw(`CREATE ROLE ${r} ${login ? password.trim() : 'NOLOGIN'}`).execute(trx);
    else if (login) await sql.raw(`ALTER ROLE ${r}${password}`).execute(trx);

    const before = found ? await writeAccess(trx, name, tableWrite) : [];
    await sql.raw(`REVOKE ${tableWrite.join(', ')} ON ALL TABLES IN SCHEMA efa FROM ${r}`).execute(trx);
    await sql.raw(`REVOKE ${SEQUENCE_WRITE.join(', ')} ON ALL SEQUENCES IN SCHEMA efa FROM ${r}`).execute(trx);
    await sql.raw(`REVOKE CREATE ON SCHEMA efa FROM ${r}`).execute(trx);
    // Default privileges granted to the role for future objects in efa, by whoever set them up; only
    // roles this one may act for can be altered, the rest shows up as remaining access below.
    const grantors = await sql<{ name: string }>`
      SELECT DISTINCT pg_get_userbyid(defaclrole)::text AS name FROM pg_default_acl
      WHERE defaclnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'efa')
        AND pg_has_role(current_user, defaclrole, 'MEMBER') ORDER BY 1`.execute(trx);
    for (const grantor of grantors.rows) {
      const forRole = `ALTER DEFAULT PRIVILEGES FOR ROLE ${quoteIdent(grantor.name)} IN SCHEMA efa`;
      await sql.raw(`${forRole} REVOKE ${tableWrite.join(', ')} ON TABLES FROM ${r}`).execute(trx);
      await sql.raw(`${forRole} REVOKE ${SEQUENCE_WRITE.join(', ')} ON SEQUENCES FROM ${r}`).execute(trx);
    }

    // The secrets of the job locks (migration 12): a reader that could read them could block jobs.
    const hasPrivate = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'efa_private'`.execute(trx);
    if (hasPrivate.rows[0]?.n === 1) {
      await sql.raw(`REVOKE ALL ON ALL TABLES IN SCHEMA efa_private FROM ${r}`).execute(trx);
      await sql.raw(`REVOKE ALL ON SCHEMA efa_private FROM ${r}`).execute(trx);
    }
    await sql.raw(`GRANT USAGE ON SCHEMA efa TO ${r}`).execute(trx);
    // ALL TABLES covers tables, views, materialized views and foreign tables.
    await sql.raw(`GRANT SELECT ON ALL TABLES IN SCHEMA efa TO ${r}`).execute(trx);
    const defaultsFor = await targetRolesForDefaults(trx);
    for (const owner of defaultsFor) {
      await sql.raw(`ALTER DEFAULT PRIVILEGES FOR ROLE ${quoteIdent(owner)} IN SCHEMA efa GRANT SELECT ON TABLES TO ${r}`).execute(trx);
    }

    const holds = await remainingWriteAccess(trx, name, tableWrite, version);
    if (holds.length > 0) throw new ReaderNotReadOnlyError(name, holds);
    const pub = await publicDefaults(trx, opts.revokePublic === true, defaultsFor.map(quoteIdent));
    return { role: name, created: !found, login, defaultsFor, revoked: before, publicOpen: pub.open, publicRevoked: pub.revoked };
  });
}
