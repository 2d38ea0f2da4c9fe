import { createHash, createHmac } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { grantReader, ReaderNotReadOnlyError, scramSha256Verifier, validateRoleName } from '../../src/db/grant.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';

describe('grant-reader: role names and passwords', () => {
  it('accepts lower-case identifiers and rejects anything else with a ConfigError', () => {
    expect(validateRoleName('efa_reader')).toBe('efa_reader');
    for (const bad of ['', 'Analyst', 'a b', 'x"; DROP ROLE postgres; --', 'pg_read_all_data', 'public', 'current_user', '1abc', 'a'.repeat(64)]) {
      expect(() => validateRoleName(bad), bad).toThrow(ConfigError);
    }
  });

  it('computes the SCRAM-SHA-256 verifier of RFC 7677 (user/pencil)', () => {
    const verifier = scramSha256Verifier('pencil', Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'), 4096);
    const m = /^SCRAM-SHA-256\$4096:W22ZaJ0SNY7soEsUEjb6gQ==\$([^:]+):(.+)$/.exec(verifier);
    expect(m).not.toBeNull();
    const storedKey = Buffer.from(m?.[1] ?? '', 'base64');
    const serverKey = Buffer.from(m?.[2] ?? '', 'base64');
    const nonce = 'rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const authMessage = `n=user,r=rOprNGfwEbeRWgbNEkqO,r=${nonce},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=${nonce}`;
    expect(createHmac('sha256', serverKey).update(authMessage).digest('base64')).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    const proof = Buffer.from('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=', 'base64');
    const signature = createHmac('sha256', storedKey).update(authMessage).digest();
    const clientKey = Buffer.from(proof.map((b, i) => b ^ (signature[i] ?? 0)));
    expect(createHash('sha256').update(clientKey).digest().equals(storedKey)).toBe(true);
  });
});

describe('grant-reader on PostgreSQL', () => {
  const onServer = dbKind() === 'postgres';
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const reader = `efa_reader_${suffix}`;
  const loginReader = `efa_login_${suffix}`;
  const writer = `efa_writer_${suffix}`;
  const owner = `efa_owner_${suffix}`;
  const member = `efa_member_${suffix}`;
  const cliReader = `efa_cli_${suffix}`;
  const roles = [reader, loginReader, writer, member, owner, cliReader];
  let t: TestDb | undefined;

  const asRole = async (role: string, statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: t?.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL ROLE ${role}`);
      await client.query(statement);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  };
  const asReader = (statement: string): Promise<void> => asRole(reader, statement);
  const denied = [
    `INSERT INTO efa.runs (job_name, job_hash) VALUES ('x', 'y')`,
    `UPDATE efa.pins SET name = 'x'`,
    `DELETE FROM efa.change_sets`,
    `TRUNCATE efa.rejects`,
    `CREATE TABLE efa.sneaky (x int)`,
    `CREATE VIEW efa.sneaky AS SELECT 1 AS x`,
    `REFRESH MATERIALIZED VIEW efa.stop_summary`,
  ];

  beforeAll(async () => {
    if (!onServer) return;
    t = await openTestDb();
    await migrate(t.db);
    await t.db.exec(`
      INSERT INTO efa.runs (run_id, job_name, source, job_hash, status) VALUES (1, 'demo', 'demo', 'h', 'succeeded');
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
        VALUES ('demo', 'STOP:s1', 'STOP', 's1', 'Hbf', ST_SetSRID(ST_MakePoint(9.18, 48.78), 4326), 'h', 1, 1);
      INSERT INTO efa.change_sets (run_id, source, relation, op, keys) VALUES (1, 'demo', 'pins', 'insert', '{STOP:s1}');
      REFRESH MATERIALIZED VIEW efa.stop_summary;`);
    const result = await grantReader(t.db, reader);
    expect(result).toMatchObject({ role: reader, created: true, login: false });
  });

  afterAll(async () => {
    if (!t) return;
    for (const role of roles) await t.db.exec(`DROP OWNED BY ${role}`).catch(() => undefined);
    const url = t.url;
    await t.dispose();
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/?]+(\?|$)/, '/postgres$1') });
    await admin.connect();
    for (const role of roles) await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it.skipIf(!onServer)('creates a NOLOGIN role by default', async () => {
    const r = await sql<{ login: boolean; super: boolean }>`
      SELECT rolcanlogin AS login, rolsuper AS super FROM pg_roles WHERE rolname = ${reader}`.execute(t!.db.kysely);
    expect(r.rows).toEqual([{ login: false, super: false }]);
  });

  it.skipIf(!onServer)('says, from the CLI, that a role made without --login cannot log in and how to get one that can', async () => {
    const r = await runCli(['grant-reader', cliReader, '--db', t!.url, '--log-format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`role ${cliReader} cannot log in: GRANT ${cliReader} TO an existing user, or run again with --login`);
  });

  it.skipIf(!onServer)('lets the reader SELECT every table, view and materialized view in efa', async () => {
    const rels = await sql<{ name: string }>`
      SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'efa' AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY 1`.execute(t!.db.kysely);
    expect(rels.rows.length).toBeGreaterThan(15);
    for (const { name } of rels.rows) await expect(asReader(`SELECT * FROM efa.${name} LIMIT 1`), name).resolves.toBeUndefined();
  });

  it.skipIf(!onServer)('denies INSERT, UPDATE, DELETE, TRUNCATE, CREATE and REFRESH with a permission error', async () => {
    for (const statement of denied) await expect(asReader(statement), statement).rejects.toThrow(/permission denied|must be owner/);
  });

  it.skipIf(!onServer)('lets the reader SELECT tables created in efa later (default privileges)', async () => {
    await t!.db.exec('CREATE TABLE efa.later_table (x int); INSERT INTO efa.later_table VALUES (1)');
    await expect(asReader('SELECT x FROM efa.later_table')).resolves.toBeUndefined();
    await t!.db.exec('DROP TABLE efa.later_table');
  });

  it.skipIf(!onServer)('is idempotent, and refuses a superuser or the role running it', async () => {
    await expect(grantReader(t!.db, reader)).resolves.toMatchObject({ created: false, login: false });
    const me = await sql<{ me: string }>`SELECT current_user::text AS me`.execute(t!.db.kysely);
    await expect(grantReader(t!.db, me.rows[0]?.me ?? 'postgres')).rejects.toThrow(ConfigError);
  });

  it.skipIf(!onServer)('takes every write privilege in efa away from an existing role that had them', async () => {
    await t!.db.exec(`
      CREATE ROLE ${writer} NOLOGIN;
      GRANT USAGE, CREATE ON SCHEMA efa TO ${writer};
      GRANT ALL ON ALL TABLES IN SCHEMA efa TO ${writer};
      GRANT UPDATE (name) ON efa.pins TO ${writer};
      GRANT ALL ON ALL SEQUENCES IN SCHEMA efa TO ${writer};
      ALTER DEFAULT PRIVILEGES IN SCHEMA efa GRANT INSERT, DELETE ON TABLES TO ${writer};`);
    await expect(asRole(writer, `DELETE FROM efa.change_sets`)).resolves.toBeUndefined();

    const result = await grantReader(t!.db, writer);
    expect(result.created).toBe(false);
    expect(result.revoked).toEqual(expect.arrayContaining(['INSERT on efa.pins', 'TRUNCATE on efa.rejects', 'CREATE on schema efa']));
    expect(result.revoked.some((line) => /^INSERT on future tables created by \S+ in efa$/.test(line))).toBe(true);

    for (const statement of denied) await expect(asRole(writer, statement), statement).rejects.toThrow(/permission denied|must be owner/);
    await expect(asRole(writer, `SELECT nextval(pg_get_serial_sequence('efa.runs', 'run_id'))`)).rejects.toThrow(/permission denied/);
    await expect(asRole(writer, 'SELECT count(*) FROM efa.pins')).resolves.toBeUndefined();
    // Tables created later: readable, not writable, despite the default privilege it had.
    await t!.db.exec('CREATE TABLE efa.later_write (x int)');
    await expect(asRole(writer, 'SELECT x FROM efa.later_write')).resolves.toBeUndefined();
    await expect(asRole(writer, 'INSERT INTO efa.later_write VALUES (1)')).rejects.toThrow(/permission denied/);
    await t!.db.exec('DROP TABLE efa.later_write');
  });

  it.skipIf(!onServer)('refuses, changing nothing, a role that owns objects in efa or can write through a membership', async () => {
    await t!.db.exec(`
      CREATE ROLE ${owner} NOLOGIN;
      CREATE TABLE efa.owned_by_other (x int);
      ALTER TABLE efa.owned_by_other OWNER TO ${owner};
      CREATE ROLE ${member} NOLOGIN IN ROLE ${owner};`);
    try {
      for (const role of [owner, member]) {
        const error = await grantReader(t!.db, role).catch((e: unknown) => e);
        expect(error, role).toBeInstanceOf(ReaderNotReadOnlyError);
        expect(error, role).toBeInstanceOf(ConfigError);
        const holds = (error as ReaderNotReadOnlyError).holds.join('\n');
        expect(holds, role).toContain('owns efa.owned_by_other');
        if (role === member) expect(holds).toContain(`through its membership in ${owner}`);
        expect((error as ReaderNotReadOnlyError).message).toContain('nothing was changed');
        const granted = await sql<{ usage: boolean }>`SELECT has_schema_privilege(${role}, 'efa', 'USAGE') AS usage`.execute(t!.db.kysely);
        expect(granted.rows[0]?.usage, role).toBe(false);
      }
    } finally {
      await t!.db.exec('DROP TABLE efa.owned_by_other');
    }
  });

  it.skipIf(!onServer)('--login: stores a SCRAM verifier (never the password) and the role connects and reads only', async () => {
    await expect(grantReader(t!.db, loginReader, { login: true })).rejects.toThrow(/EFA_READER_PASSWORD/);
    await grantReader(t!.db, loginReader, { login: true, password: "it's secret" });
    const stored = await sql<{ login: boolean; pw: string | null }>`
      SELECT rolcanlogin AS login, rolpassword AS pw FROM pg_authid WHERE rolname = ${loginReader}`.execute(t!.db.kysely);
    expect(stored.rows[0]?.login).toBe(true);
    expect(stored.rows[0]?.pw).toMatch(/^SCRAM-SHA-256\$4096:/);
    const u = new URL(t!.url);
    u.username = loginReader;
    u.password = "it's secret";
    const pool = new pg.Pool({ connectionString: u.toString(), max: 1 });
    try {
      const r = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM efa.pins');
      expect(r.rows[0]?.n).toBe(1);
      await expect(pool.query(`DELETE FROM efa.pins`)).rejects.toThrow(/permission denied/);
      await expect(pool.query(`CREATE TABLE efa.sneaky (x int)`)).rejects.toThrow(/permission denied/);
    } finally {
      await pool.end();
    }
  });

  it.skipIf(!onServer)('--revoke-public: the reader creates no temporary object, writes no large object, runs no DO block; the ETL roles keep TEMPORARY (issue 54.4)', async () => {
    // Through PUBLIC's defaults, a reader made read-only on efa could still do these.
    await expect(asReader('CREATE TEMP TABLE reader_temp (i int)')).resolves.toBeUndefined();
    const kept = await grantReader(t!.db, reader);
    expect(kept.publicOpen.some((what) => /temporary/.test(what))).toBe(true);
    const result = await grantReader(t!.db, reader, { revokePublic: true });
    expect(result.publicOpen).toEqual([]);
    expect(result.publicRevoked.join('; ')).toMatch(/temporary.*large objects/s);
    for (const statement of ['CREATE TEMP TABLE reader_temp (i int)', 'CREATE TEMP VIEW reader_view AS SELECT 1', "SELECT lo_from_bytea(0, 'junk')", "SELECT lo_import('/etc/hostname')", 'DO $$ BEGIN END $$', "SELECT pg_notify('x', 'y')"]) {
      await expect(asReader(statement), statement).rejects.toThrow(/permission denied/);
    }
    for (const etl of result.defaultsFor) {
      const temp = await sql<{ ok: boolean }>`SELECT has_database_privilege(${etl}, current_database(), 'TEMPORARY') AS ok`.execute(t!.db.kysely);
      expect(temp.rows[0]?.ok, etl).toBe(true);
    }
    // Reading stays as it was.
    await expect(asReader('SELECT count(*) FROM efa.pins')).resolves.toBeUndefined();
  });
});
