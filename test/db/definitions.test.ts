import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connect.js';
import { applyDefinitions, DefinitionCycleError, orderDefinitions, readDefinitionFiles, type Definition } from '../../src/db/definitions.js';
import { migrate } from '../../src/db/migrate.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';
import { relationDefinitions } from '../../src/relations/definitions.js';

/**
 * Views and functions are definitions: a folder of one small migration and three definition files
 * (a view, a view reading it, a function) stands for sql/, so each case migrates in a moment.
 */
const base = `CREATE TABLE efa.schema_definitions (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE efa.items (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO efa.items VALUES (1, 'one'), (2, 'two');`;
const names = (select: string) => `-- after:\nCREATE OR REPLACE VIEW efa.item_names AS ${select};\nCOMMENT ON VIEW efa.item_names IS 'The items by name.';\n`;
const count = `-- after: efa.item_names\nCREATE OR REPLACE VIEW efa.item_count AS SELECT count(*)::int AS n FROM efa.item_names;\n`;
const label = (returns: string, body: string) =>
  `-- after:\nCREATE OR REPLACE FUNCTION efa.item_label(p_id int) RETURNS ${returns} LANGUAGE sql STABLE AS $$ ${body} $$;\n`;

/** A Db whose exec (every lock and every DDL script of migrate) is written down. */
function recording(db: Db, scripts: string[]): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'exec') return (script: string) => (scripts.push(script), target.exec(script));
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('definitions: views and functions re-applied when their checksum changes', () => {
  let t: TestDb;
  let dir: string;
  const write = async (folder: 'views' | 'functions', name: string, text: string) => writeFile(join(dir, folder, `${name}.sql`), text);
  const reader = `efa_defs_reader_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-definitions-'));
    await mkdir(join(dir, 'views'));
    await mkdir(join(dir, 'functions'));
    await writeFile(join(dir, '001_base.sql'), base);
    await write('views', 'item_names', names('SELECT id, name FROM efa.items'));
    await write('views', 'item_count', count);
    await write('functions', 'item_label', label('text', 'SELECT name FROM efa.items WHERE id = p_id'));
  });
  afterAll(async () => {
    if (dbKind() === 'postgres') await t?.db.exec(`DROP OWNED BY ${reader}; DROP ROLE IF EXISTS ${reader};`).catch(() => undefined);
    await t?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies every definition once, in order; an unchanged database applies nothing and takes no lock', async () => {
    const first = await migrate(t.db, dir);
    expect(first.definitions).toEqual(['efa.item_names', 'efa.item_count', 'efa.item_label']);
    const scripts: string[] = [];
    const second = await migrate(recording(t.db, scripts), dir);
    expect(second).toEqual({ applied: [], current: 1, definitions: [] });
    // exec carries every lock and every DDL statement of migrate: none ran.
    expect(scripts).toEqual([]);
    const n = await sql<{ n: number }>`SELECT n FROM efa.item_count`.execute(t.db.kysely);
    expect(n.rows).toEqual([{ n: 2 }]);
  });

  it('re-applies a changed definition and the ones that read it, not the others', async () => {
    await write('views', 'item_names', names('SELECT id, name, upper(name) AS shout FROM efa.items'));
    const r = await migrate(t.db, dir);
    expect(r.definitions).toEqual(['efa.item_names', 'efa.item_count']);
    const rows = await sql<{ shout: string }>`SELECT shout FROM efa.item_names ORDER BY id`.execute(t.db.kysely);
    expect(rows.rows.map((x) => x.shout)).toEqual(['ONE', 'TWO']);
    const stored = await sql<{ name: string }>`SELECT name FROM efa.schema_definitions ORDER BY name`.execute(t.db.kysely);
    expect(stored.rows.map((x) => x.name)).toEqual(['efa.item_count', 'efa.item_label', 'efa.item_names']);
  });

  it('drops and creates what changed shape, with its dependents, and keeps the grants given on them', async () => {
    await t.db.exec(`GRANT SELECT ON efa.item_names, efa.item_count TO PUBLIC; REVOKE EXECUTE ON FUNCTION efa.item_label(int) FROM PUBLIC;`);
    if (dbKind() === 'postgres') {
      await t.db.exec(`CREATE ROLE ${reader} NOLOGIN; GRANT USAGE ON SCHEMA efa TO ${reader};
        GRANT SELECT ON efa.item_names, efa.item_count TO ${reader}; GRANT EXECUTE ON FUNCTION efa.item_label(int) TO ${reader};`);
    }
    const acl = async () =>
      (
        await sql<{ what: string; acl: string | null }>`
          SELECT c.relname::text AS what, c.relacl::text AS acl FROM pg_class c WHERE c.relnamespace = 'efa'::regnamespace AND c.relname IN ('item_names', 'item_count')
          UNION ALL SELECT p.proname::text, p.proacl::text FROM pg_proc p WHERE p.pronamespace = 'efa'::regnamespace AND p.proname = 'item_label'
          ORDER BY 1`.execute(t.db.kysely)
      ).rows;
    const before = await acl();
    expect(before.every((x) => x.acl !== null)).toBe(true);
    // A column renamed (CREATE OR REPLACE VIEW refuses: 42P16) and a result type changed (42P13).
    await write('views', 'item_names', names('SELECT id AS item_id, name, upper(name) AS shout FROM efa.items'));
    await write('functions', 'item_label', label('varchar', 'SELECT name::varchar FROM efa.items WHERE id = p_id'));
    const r = await migrate(t.db, dir);
    expect(r.definitions).toEqual(['efa.item_names', 'efa.item_count', 'efa.item_label']);
    const cols = await sql<{ c: string }>`SELECT attname::text AS c FROM pg_attribute WHERE attrelid = 'efa.item_names'::regclass AND attnum > 0 ORDER BY attnum`.execute(t.db.kysely);
    expect(cols.rows.map((x) => x.c)).toEqual(['item_id', 'name', 'shout']);
    const type = await sql<{ t: string }>`SELECT pg_get_function_result('efa.item_label(int)'::regprocedure) AS t`.execute(t.db.kysely);
    expect(type.rows[0]?.t).toBe('character varying');
    expect(await acl()).toEqual(before);
    const comment = await sql<{ c: string }>`SELECT obj_description('efa.item_names'::regclass, 'pg_class') AS c`.execute(t.db.kysely);
    expect(comment.rows[0]?.c).toBe('The items by name.');
    if (dbKind() === 'postgres') {
      const can = await sql<{ v: boolean; f: boolean }>`
        SELECT has_table_privilege(${reader}, 'efa.item_count', 'SELECT') AS v, has_function_privilege(${reader}, 'efa.item_label(int)', 'EXECUTE') AS f`.execute(t.db.kysely);
      expect(can.rows[0]).toEqual({ v: true, f: true });
    }
  });

  it('names the cycle when definitions read each other', async () => {
    const def = (name: string, after: string[]): Definition => ({ name, after, kind: 'view', sql: `CREATE OR REPLACE VIEW ${name} AS SELECT 1 AS x;` });
    const cycle = [def('efa.a', ['efa.c']), def('efa.b', ['efa.a']), def('efa.c', ['efa.b'])];
    expect(() => orderDefinitions(cycle)).toThrow(DefinitionCycleError);
    await expect(applyDefinitions(t.db, cycle)).rejects.toThrow('efa.a -> efa.c -> efa.b -> efa.a');
    await expect(applyDefinitions(t.db, [def('efa.a', ['efa.nowhere'])])).rejects.toThrow(/efa\.nowhere/);
  });
});

describe("sql/'s definition files", () => {
  it('each parses, names what it reads, and all of them have an order', async () => {
    // The files may read what the relations' declarations generate (efa.diff reads efa.history_relations()).
    const defs = [...(await readDefinitionFiles()), ...relationDefinitions()];
    const ordered = orderDefinitions(defs);
    expect(ordered).toHaveLength(defs.length);
    const at = new Map(ordered.map((d, i) => [d.name, i]));
    for (const d of ordered) for (const a of d.after) expect(at.get(a)).toBeLessThan(at.get(d.name) as number);
    const byName = new Map(defs.map((d) => [d.name, d]));
    expect(byName.get('efa.stop_summary')?.after).toEqual(['efa.active_notices', 'efa.notice_lines', 'efa.stops']);
    expect(byName.get('efa.run_tiles_split')?.kind).toBe('trigger');
    expect(byName.get('efa.stops')?.kind).toBe('view');
    expect(byName.get('efa.gone_pins')?.kind).toBe('function');
  });
});
