import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { ConfigError } from '../errors.js';
import type { Db } from './connect.js';
import type { Database } from './tables.js';

export interface GrantReaderOptions {
  /** LOGIN with this password (from $EFA_READER_PASSWORD); otherwise a new role is NOLOGIN. */
  readonly login?: boolean;
  readonly password?: string | undefined;
}

export interface GrantReaderResult {
  readonly role: string;
  /** The role did not exist and was created. */
  readonly created: boolean;
  /** LOGIN and the password were set by this call. */
  readonly login: boolean;
  /** Roles whose future tables in efa the reader may SELECT (ALTER DEFAULT PRIVILEGES FOR ROLE …). */
  readonly defaultsFor: readonly string[];
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

/**
 * Makes `role` a read-only reader of schema efa: creates it if needed (NOLOGIN, or LOGIN with
 * `opts.password`), grants USAGE on the schema and SELECT on every table, view and materialized
 * view in it, and SELECT on tables created there later. Grants nothing else and revokes nothing.
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
    const password = login ? ` LOGIN PASSWORD '${scramSha256Verifier(opts.password ?? '')}'` : '';
    if (!found) await sql.raw(`CREATE ROLE ${r} ${login ? password.trim() : 'NOLOGIN'}`).execute(trx);
    else if (login) await sql.raw(`ALTER ROLE ${r}${password}`).execute(trx);
    await sql.raw(`GRANT USAGE ON SCHEMA efa TO ${r}`).execute(trx);
    // ALL TABLES covers tables, views, materialized views and foreign tables.
    await sql.raw(`GRANT SELECT ON ALL TABLES IN SCHEMA efa TO ${r}`).execute(trx);
    const defaultsFor = await targetRolesForDefaults(trx);
    for (const owner of defaultsFor) {
      await sql.raw(`ALTER DEFAULT PRIVILEGES FOR ROLE ${quoteIdent(owner)} IN SCHEMA efa GRANT SELECT ON TABLES TO ${r}`).execute(trx);
    }
    return { role: name, created: !found, login, defaultsFor };
  });
}
