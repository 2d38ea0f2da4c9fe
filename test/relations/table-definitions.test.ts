import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations, type Db } from '../../src/db/index.js';
import { LEGACY_CHECKSUMS } from '../../src/db/legacy-checksums.js';
import { sqlDir } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/tables.js';
import { relationTablesPlan, syncRelationTables } from '../../src/db/table-sync.js';
import { HISTORY_RELATIONS } from '../../src/history/index.js';
import { historyTables, relationDefinitions, relationTables } from '../../src/relations/definitions.js';
import { historyCommentsSql, historyIndexes, historyRelationsSql, versionedColumns, type HistoryTable } from '../../src/relations/history-sql.js';
import type { TableDefinition } from '../../src/relations/table.js';
import { entities, RELATIONS, type Relation } from '../../src/relations/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * The relations' declarations (src/relations/) against what the migrations made before any of it
 * was generated: a database migrated from a copy of sql/ (so migrate neither syncs nor applies the
 * generated definitions) holds the tables, indexes and comments the declarations state, and the
 * SQL they generate for history is, statement for statement, what released sql/014 held
 * (test/relations/fixtures/014_history.released.sql, the file whose sha256 LEGACY_CHECKSUMS keeps).
 */
const released = new URL('./fixtures/014_history.released.sql', import.meta.url);
/** 026 as released: the history tables' index by source and end, which the declarations now hold too. */
const released026 = new URL('./fixtures/026_lake_history_index.released.sql', import.meta.url);

interface CatalogColumn {
  name: string;
  type: string;
  not_null: boolean;
  identity: boolean;
  default: string | null;
  comment: string | null;
}

async function columnsOf(db: Db, table: string): Promise<CatalogColumn[]> {
  const r = await sql<CatalogColumn>`
    SELECT a.attname::text AS name, replace(format_type(a.atttypid, a.atttypmod), 'public.', '') AS type, a.attnotnull AS not_null,
           a.attidentity <> '' AS identity, pg_get_expr(d.adbin, d.adrelid) AS default, col_description(a.attrelid, a.attnum) AS comment
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = ${`efa.${table}`}::regclass AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attname`.execute(db.kysely);
  return r.rows;
}

async function indexesOf(db: Db, table: string): Promise<{ name: string; method: string; def: string }[]> {
  const r = await sql<{ name: string; method: string; def: string }>`
    SELECT i.relname::text AS name, m.amname::text AS method, pg_get_indexdef(i.oid) AS def
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am m ON m.oid = i.relam
    WHERE x.indrelid = ${`efa.${table}`}::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid)
    ORDER BY 1`.execute(db.kysely);
  return r.rows;
}

async function comment(db: Db, table: string): Promise<string | null> {
  const r = await sql<{ c: string | null }>`SELECT obj_description(${`efa.${table}`}::regclass, 'pg_class') AS c`.execute(db.kysely);
  return r.rows[0]?.c ?? null;
}

/** The statements of an SQL script: function bodies ($$…$$) kept whole, statements trimmed. */
function statements(script: string): string[] {
  const out: string[] = [];
  let current = '';
  let inBody = false;
  for (const line of script.split('\n')) {
    if (!current && (line.startsWith('--') || line.trim() === '')) continue;
    current += `${line}\n`;
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inBody = !inBody;
    if (!inBody && line.trimEnd().endsWith(';')) {
      out.push(current.trim());
      current = '';
    }
  }
  return out;
}

describe('relation declarations: what the migrations made', () => {
  let t: TestDb;
  let full: TestDb;
  let copy: string;
  // The relations whose tables numbered migrations made; one added since (sharing_stations) is made by
  // the sync from its declaration alone, so there is nothing of it to compare here.
  let made: TableDefinition[] = [];
  let madeHistory: HistoryTable[] = [];

  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
    full = await openTestDb();
    // A copy of sql/: migrate applies the numbered migrations alone.
    copy = await mkdtemp(join(tmpdir(), 'efa-sql-copy-'));
    for (const m of await readMigrations()) {
      const f = `${String(m.version).padStart(3, '0')}_${m.name}.sql`;
      await cp(join(sqlDir, f), join(copy, f));
    }
    await migrate(t.db, copy);
    // The history tables and their indexes are the table sync's now (014 and 026 are empty): the ones
    // released 014 and 026 made are made here, as a warehouse of that time holds them.
    const releasedDdl = [...statements(await readFile(released, 'utf8')), ...statements(await readFile(released026, 'utf8'))]
      .filter((x) => /^CREATE (TABLE|INDEX)( IF NOT EXISTS)? \S*_history/.test(x));
    await t.db.exec(releasedDdl.join('\n'));
    const tables = await sql<{ name: string }>`SELECT relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'efa'`.execute(t.db.kysely);
    const names = new Set(tables.rows.map((r) => r.name));
    made = relationTables().filter((x) => names.has(x.name));
    madeHistory = historyTables().filter((x) => names.has(x.name));
    expect(made.map((x) => x.name)).toEqual(['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas', 'vehicle_snapshots', 'parking_snapshots']);
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await full?.dispose();
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('every relation table has the declared columns (type, nullability, identity, default, comment) and comment', async () => {
    // The comments have one home, the declarations (the migrations no longer write them): they are
    // read off a database migrate brought all the way, the rest off the numbered migrations alone.
    for (const table of made) {
      const declared = table.columns
        .map((c) => ({ name: c.name, type: c.type, not_null: c.notNull ?? false, identity: c.identity ?? false, default: c.default ?? null, comment: c.comment }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const uncommented = declared.map((c) => ({ ...c, comment: null }));
      expect(await columnsOf(t.db, table.name), table.name).toEqual(uncommented);
      expect(await columnsOf(full.db, table.name), table.name).toEqual(declared);
      expect(await comment(full.db, table.name), table.name).toBe(table.comment);
    }
  });

  it('every relation table has the declared indexes and constraints', async () => {
    for (const table of made) {
      const indexes = await indexesOf(t.db, table.name);
      expect(indexes.map((i) => i.name), table.name).toEqual(table.indexes.map((i) => i.name).sort());
      for (const i of table.indexes) {
        const found = indexes.find((x) => x.name === i.name);
        expect(found?.method, i.name).toBe(i.using ?? 'btree');
        expect(found?.def, i.name).toContain(`(${i.on.join(', ')})`);
      }
      const cons = await sql<{ name: string }>`
        SELECT conname::text AS name FROM pg_constraint WHERE conrelid = ${`efa.${table.name}`}::regclass AND contype IN ('p', 'u', 'f', 'c') ORDER BY 1`.execute(t.db.kysely);
      expect(cons.rows.map((c) => c.name), table.name).toEqual([`${table.name}_pkey`, ...table.constraints.map((c) => c.name)].sort());
    }
  });

  it('every history table has the versioned columns and the generated indexes', async () => {
    for (const table of madeHistory) {
      const h = `${table.name}_history`;
      const names = (await columnsOf(t.db, h)).map((c) => `${c.name} ${c.type}${c.not_null ? ' NOT NULL' : ''}`);
      const expected = [
        'hist_id bigint NOT NULL',
        ...versionedColumns(table).map((c) => `${c.name} ${c.type}${c.name === 'fid' || c.name === 'source' ? ' NOT NULL' : ''}`),
        'valid tstzrange NOT NULL', 'ended_by text NOT NULL', 'replaced_by bigint',
      ].sort((a, b) => a.split(' ')[0]!.localeCompare(b.split(' ')[0]!));
      expect(names, h).toEqual(expected);
      expect((await indexesOf(t.db, h)).map((i) => i.name), h).toEqual(historyIndexes(table).map((i) => i.name).sort());
    }
  });

  it('the generated history SQL is, statement for statement, the released sql/014', async () => {
    const text = await readFile(released, 'utf8');
    expect(createHash('sha256').update(text).digest('hex')).toBe(LEGACY_CHECKSUMS[14]?.[0]);
    // 014 spelled a geometry type with a space after the comma (geometry(Point, 4326)); the declarations as the catalog does.
    // The as-of functions' comments end in an example query, rewritten since 014 so that it answers on any
    // warehouse (a function is a definition, re-applied when it changes): compared up to that example.
    const withoutExample = (s: string): string => s.replace(/(\(version_to NULL: still current\)\.) .*';$/s, "$1';");
    const old = new Set(statements(text.replaceAll(', 4326)', ',4326)')).map(withoutExample));
    // The history objects of the relations 014 made (not their tables' comments, which 003 and 006 wrote),
    // and efa.history_relations() as it listed them.
    const ofMade = (name: string): boolean => madeHistory.some((x) => name.startsWith(`efa.${x.name}_`) && name !== `efa.${x.name}_comments`);
    const generated = [
      ...relationDefinitions().filter((d) => ofMade(d.name)),
      { name: 'efa.history_relations', sql: historyRelationsSql(madeHistory) },
    ];
    let compared = 0;
    for (const d of generated) {
      for (const s of statements(d.sql)) {
        expect(old.has(withoutExample(s.replace(/^CREATE OR REPLACE (FUNCTION|TRIGGER)/, 'CREATE $1'))), `${d.name}: ${s.slice(0, 120)}`).toBe(true);
        compared++;
      }
    }
    // 6 relations × (trigger function, trigger, as_of, versions, with a comment each but the trigger), their history
    // tables' comments, efa.history_relations() and its comment.
    expect(compared).toBe(6 * 7 + madeHistory.reduce((n, x) => n + statements(historyCommentsSql(x)).length, 0) + 2);
  });

  it('sync: an up-to-date database needs nothing; a missing table, column or index is made; a changed type is named', async () => {
    await migrate(t.db);
    expect(await relationTablesPlan(t.db)).toEqual({ statements: [], differences: [] });
    await t.db.exec(`DROP TABLE efa.stop_lines_history; ALTER TABLE efa.lines_history DROP COLUMN direction; DROP INDEX efa.pins_source_type_idx;`);
    const plan = await relationTablesPlan(t.db);
    expect(plan.differences).toEqual([]);
    expect(plan.statements.join('\n')).toMatch(/CREATE TABLE IF NOT EXISTS efa\.stop_lines_history/);
    expect(plan.statements).toContain('ALTER TABLE efa.lines_history ADD COLUMN IF NOT EXISTS direction text;');
    expect(plan.statements).toContain('CREATE INDEX IF NOT EXISTS pins_source_type_idx ON efa.pins (source, type);');
    await syncRelationTables(t.db);
    expect(await relationTablesPlan(t.db)).toEqual({ statements: [], differences: [] });
    const sl = historyTables().find((x) => x.name === 'stop_lines')!;
    expect((await indexesOf(t.db, 'stop_lines_history')).map((i) => i.name)).toEqual(historyIndexes(sl).map((i) => i.name).sort());

    await t.db.exec('ALTER TABLE efa.lines_history ALTER COLUMN mot TYPE bigint');
    await expect(syncRelationTables(t.db)).rejects.toThrow(/efa\.lines_history\.mot is bigint but declared integer.*write a numbered migration/);
    await t.db.exec('ALTER TABLE efa.lines_history ALTER COLUMN mot TYPE integer');
  });
});

describe('relation declarations: the lists derived from them', () => {
  it('every entity declares the key and gone column its table declares', () => {
    for (const r of RELATIONS) {
      const e = entities[r];
      expect(e.table.name).toBe(r);
      expect(e.table.history?.key).toBe(e.key);
      expect(e.table.history?.gone).toBe(e.goneColumn);
      const declared = new Set(e.table.columns.map((c) => c.name));
      for (const c of e.stored) expect(declared.has(c.name), `${r}.${c.name}`).toBe(true);
    }
  });

  it('HISTORY_RELATIONS are the declarations with history', () => {
    expect([...HISTORY_RELATIONS]).toEqual(historyTables().map((x) => x.name));
    expect([...HISTORY_RELATIONS]).toEqual(['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas', 'sharing_stations']);
  });

  it("the kysely types of src/db/tables.ts name the declared columns", () => {
    // Each object must name every column of its kysely type and no other (the compiler checks that);
    // the test checks the same names are declared.
    const kysely: { [R in Relation]: Record<keyof Database[`efa.${R}`], true> } = {
      pins: { fid: true, source: true, pin_key: true, type: true, id: true, name: true, mot_types: true, geom: true, global_id: true, attrs: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
      lines: { fid: true, source: true, line_key: true, line_id: true, name: true, number: true, mot: true, direction: true, attrs: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
      stop_lines: { fid: true, source: true, pair_key: true, stop_id: true, line_key: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
      notices: { fid: true, source: true, notice_id: true, type: true, title: true, text: true, valid_from: true, valid_to: true, severity: true, lines: true, attrs: true, content_hash: true, first_run: true, changed_run: true, ended_at: true },
      sharing_providers: { fid: true, source: true, provider_id: true, name: true, vehicle_type: true, attrs: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
      operating_areas: { fid: true, source: true, area_key: true, provider_id: true, area_id: true, name: true, geom: true, in_region: true, attrs: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
      sharing_stations: { fid: true, source: true, station_key: true, provider_id: true, station_id: true, name: true, geom: true, operating_area_id: true, station_number: true, address: true, slots: true, out_of_service: true, attrs: true, content_hash: true, first_run: true, changed_run: true, deleted_at: true },
    };
    for (const r of RELATIONS) expect(Object.keys(kysely[r]).sort(), r).toEqual(entities[r].table.columns.map((c) => c.name).sort());
  });
});
