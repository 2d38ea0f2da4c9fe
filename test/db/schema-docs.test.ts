import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { refreshAnalystViews } from '../../src/db/views.js';
import { exampleQueries, generateSchemaDoc, readCatalog, schemaDocPath } from '../../scripts/schema-docs/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/** Contract section 4: every relation with at least these columns, each of which must be documented. */
const contract: Readonly<Record<string, readonly string[]>> = {
  runs: ['run_id', 'job_name', 'status', 'started_at', 'finished_at', 'requests', 'stats', 'error'],
  pins: ['pin_key', 'type', 'id', 'name', 'geom', 'attrs', 'first_run', 'changed_run', 'deleted_at'],
  stops: ['stop_id', 'name', 'mot_types', 'geom', 'deleted_at'],
  pois: ['pin_key', 'type', 'name', 'geom', 'deleted_at'],
  lines: ['line_key', 'name', 'number', 'mot', 'direction'],
  stop_lines: ['stop_id', 'line_key'],
  notices: ['notice_id', 'type', 'title', 'text', 'valid_from', 'valid_to', 'severity', 'lines', 'first_run', 'changed_run', 'ended_at'],
  sharing_providers: ['provider_id', 'name', 'vehicle_type'],
  operating_areas: ['provider_id', 'area_id', 'name', 'geom'],
  changes: ['run_id', 'relation', 'key', 'op'],
  rejects: ['run_id', 'operation', 'reason', 'raw'],
  stop_summary: ['stop_id', 'name', 'mot_types', 'line_count', 'active_notice_count', 'geom', 'fid', 'lon', 'lat'],
  active_notices: ['notice_id', 'line_names'],
  changes_per_run: ['run_id', 'relation', 'inserted', 'updated', 'deleted'],
  tile_coverage: ['run_id', 'tile_id', 'hits', 'capped', 'failed', 'last_fetched_at', 'geom'],
};

describe('schema documentation', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  it('has a comment on every table, view, materialized view and column of schema efa', async () => {
    const doc = await generateSchemaDoc(t.db);
    expect(doc.undocumented).toEqual([]);
  });

  it('documents every relation and column of contract section 4', async () => {
    const catalog = await readCatalog(t.db);
    for (const [name, columns] of Object.entries(contract)) {
      const rel = catalog.relations.find((r) => r.name === name);
      expect(rel?.comment, `efa.${name}`).toBeTruthy();
      for (const c of columns) expect(rel?.columns.find((col) => col.name === c)?.comment, `efa.${name}.${c}`).toBeTruthy();
    }
  });

  it('keeps docs/schema.md up to date (npm run docs:schema regenerates it)', async () => {
    const { text } = await generateSchemaDoc(t.db);
    const file = await readFile(schemaDocPath, 'utf8');
    expect(file === text, 'docs/schema.md is out of date: run npm run docs:schema').toBe(true);
    expect(text).toContain('erDiagram');
  });

  it('types every geometry column with its kind and SRID 4326, so QGIS reads it', async () => {
    const r = await sql<{ rel: string; col: string; srid: number; type: string }>`
      SELECT f_table_name::text AS rel, f_geometry_column::text AS col, srid, type::text AS type
      FROM geometry_columns WHERE f_table_schema = 'efa' ORDER BY 1, 2`.execute(t.db.kysely);
    expect(r.rows.map((g) => g.rel)).toEqual(
      expect.arrayContaining(['operating_areas', 'pins', 'pois', 'run_tiles', 'stop_summary', 'stops', 'tile_coverage']),
    );
    for (const g of r.rows) {
      expect(g.srid, `${g.rel}.${g.col}`).toBe(4326);
      expect(g.type, `${g.rel}.${g.col}`).not.toBe('GEOMETRY');
    }
  });

  it('runs every example query of docs/schema.md', async () => {
    for (const q of exampleQueries) await expect(t.db.exec(q.sql), q.title).resolves.toBeUndefined();
  });
});

describe('analyst views', () => {
  let t: TestDb;
  const today = new Date().toISOString().slice(0, 10);
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    // Two runs of job demo (the second one the latest), one of job other without CoordInfo tiles.
    await t.db.exec(`
      SET TIME ZONE 'UTC';
      INSERT INTO efa.runs (run_id, job_name, source, job_hash, status, started_at) VALUES
        (1, 'demo', 'demo', 'h', 'succeeded', now() - interval '2 days'),
        (2, 'demo', 'demo', 'h', 'partial', now() - interval '1 day'),
        (3, 'other', 'demo', 'h', 'succeeded', now());
      INSERT INTO efa.pins (source, pin_key, type, id, name, mot_types, geom, content_hash, first_run, changed_run, deleted_at) VALUES
        ('demo', 's1', 'STOP', 's1', 'Hbf', '{1,5}', ST_SetSRID(ST_MakePoint(9.18, 48.78), 4326), 'h', 1, 1, NULL),
        ('demo', 's2', 'STOP', 's2', 'Nord', '{5}', ST_SetSRID(ST_MakePoint(9.19, 48.79), 4326), 'h', 1, 1, NULL),
        ('demo', 's3', 'STOP', 's3', 'Gone', '{5}', ST_SetSRID(ST_MakePoint(9.20, 48.80), 4326), 'h', 1, 2, now()),
        ('demo', 'p1', 'POI_POINT', NULL, 'Museum', '{}', ST_SetSRID(ST_MakePoint(9.18, 48.77), 4326), 'h', 1, 1, NULL);
      INSERT INTO efa.lines (source, line_key, line_id, name, number, mot, direction, content_hash, first_run, changed_run) VALUES
        ('demo', 'vvs:10001: :H:j24', 'vvs:10001: :H:j24', 'S1', '1', 1, 'Herrenberg', 'h', 1, 1),
        ('demo', 'vvs:10001: :R:j24', 'vvs:10001: :R:j24', 'S1', '1', 1, 'Kirchheim', 'h', 1, 1),
        ('demo', 'vvs:20042: :H:j24', 'vvs:20042: :H:j24', '42', '42', 5, 'Erwin-Schoettle-Platz', 'h', 1, 1);
      INSERT INTO efa.stop_lines (source, pair_key, stop_id, line_key, first_run, changed_run, deleted_at) VALUES
        ('demo', 's1|vvs:10001: :H:j24', 's1', 'vvs:10001: :H:j24', 1, 1, NULL), ('demo', 's1|vvs:20042: :H:j24', 's1', 'vvs:20042: :H:j24', 1, 1, NULL),
        ('demo', 's2|vvs:20042: :H:j24', 's2', 'vvs:20042: :H:j24', 1, 1, NULL), ('demo', 's2|vvs:10001: :R:j24', 's2', 'vvs:10001: :R:j24', 1, 1, now());
      INSERT INTO efa.notices (source, notice_id, type, title, valid_from, valid_to, lines, content_hash, first_run, changed_run, ended_at) VALUES
        ('demo', 'n-active', 'lineInfo', 'S1 works', current_date - 1, current_date + 1, '{"vvs:10001: :H","unknown:1"}', 'h', 1, 1, NULL),
        ('demo', 'n-open', 'generalInfo', 'General', NULL, NULL, '{}', 'h', 1, 1, NULL),
        ('demo', 'n-bus', 'lineBlocking', '42 blocked', current_date, current_date, '{"vvs:20042: :H"}', 'h', 1, 1, NULL),
        ('demo', 'n-ended', 'lineInfo', 'Over', current_date - 1, current_date + 1, '{"vvs:20042: :H"}', 'h', 1, 2, now()),
        ('demo', 'n-future', 'lineInfo', 'Later', current_date + 1, current_date + 9, '{"vvs:20042: :H"}', 'h', 1, 1, NULL),
        ('demo', 'n-past', 'lineInfo', 'Earlier', current_date - 9, current_date - 1, '{"vvs:20042: :H"}', 'h', 1, 1, NULL);
      INSERT INTO efa.run_tiles (run_id, operation, tile_id, parent_id, depth, bbox, status, hits, split) VALUES
        (1, 'coordInfo', 'root', NULL, 0, ST_MakeEnvelope(9, 48, 10, 49, 4326), 'done', 10, false),
        (2, 'coordInfo', 'root', NULL, 0, ST_MakeEnvelope(9, 48, 10, 49, 4326), 'split', 500, true),
        (2, 'coordInfo', 'a', 'root', 1, ST_MakeEnvelope(9, 48, 9.5, 49, 4326), 'done', 300, false),
        (2, 'coordInfo', 'b', 'root', 1, ST_MakeEnvelope(9.5, 48, 10, 49, 4326), 'capped', 500, false),
        (2, 'coordInfo', 'c', 'root', 1, ST_MakeEnvelope(9.5, 48, 10, 49, 4326), 'failed', 0, false),
        (2, 'servingLines', 'stop:s1', NULL, 0, NULL, 'done', 2, false),
        (3, 'addInfo', 'all', NULL, 0, NULL, 'done', 5, false);
      INSERT INTO efa.change_sets (run_id, source, relation, op, detail, keys) VALUES
        (2, 'demo', 'pins', 'delete', NULL, '{s3}'), (2, 'demo', 'pins', 'update', 'revived', '{s2}'), (2, 'demo', 'pins', 'update', NULL, '{s1}'),
        (2, 'demo', 'notices', 'delete', 'ended', '{n-ended}'), (1, 'demo', 'pins', 'insert', NULL, '{s1}');`);
    await refreshAnalystViews(t.db);
  });
  afterAll(async () => t?.dispose());

  it('efa.stop_summary: one row per current stop with its lines and active notices', async () => {
    const r = await sql<{ stop_id: string; name: string; mot_types: number[]; line_count: number; active_notice_count: number; wkt: string }>`
      SELECT stop_id, name, mot_types, line_count, active_notice_count, ST_AsText(geom) AS wkt FROM efa.stop_summary ORDER BY stop_id`.execute(t.db.kysely);
    expect(r.rows).toEqual([
      { stop_id: 's1', name: 'Hbf', mot_types: [1, 5], line_count: 2, active_notice_count: 2, wkt: 'POINT(9.18 48.78)' },
      { stop_id: 's2', name: 'Nord', mot_types: [5], line_count: 1, active_notice_count: 1, wkt: 'POINT(9.19 48.79)' },
    ]);
  });

  it('efa.active_notices: notices not ended and valid today, with the names of the lines they name', async () => {
    const r = await sql<{ notice_id: string; line_keys: string[]; line_names: string[] }>`
      SELECT notice_id, line_keys, line_names FROM efa.active_notices ORDER BY notice_id`.execute(t.db.kysely);
    expect(r.rows).toEqual([
      { notice_id: 'n-active', line_keys: ['vvs:10001: :H:j24'], line_names: ['S1'] },
      { notice_id: 'n-bus', line_keys: ['vvs:20042: :H:j24'], line_names: ['42'] },
      { notice_id: 'n-open', line_keys: [], line_names: [] },
    ]);
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('efa.changes_per_run: counts per run and relation', async () => {
    const r = await sql<{ run_id: string; relation: string; inserted: number; updated: number; deleted: number; revived: number; total: number }>`
      SELECT run_id::text AS run_id, relation, inserted, updated, deleted, revived, total FROM efa.changes_per_run ORDER BY run_id, relation`.execute(t.db.kysely);
    expect(r.rows).toEqual([
      { run_id: '1', relation: 'pins', inserted: 1, updated: 0, deleted: 0, revived: 0, total: 1 },
      { run_id: '2', relation: 'notices', inserted: 0, updated: 0, deleted: 1, revived: 0, total: 1 },
      { run_id: '2', relation: 'pins', inserted: 0, updated: 2, deleted: 1, revived: 1, total: 3 },
    ]);
  });

  it("efa.tile_coverage: the leaf CoordInfo tiles of each job's latest run", async () => {
    const r = await sql<{ job_name: string; run_id: string; tile_id: string; hits: number; capped: boolean; failed: boolean; fetched: boolean; area: number }>`
      SELECT job_name, run_id::text AS run_id, tile_id, hits, capped, failed, last_fetched_at IS NOT NULL AS fetched, ST_Area(geom) AS area
      FROM efa.tile_coverage ORDER BY tile_id`.execute(t.db.kysely);
    expect(r.rows).toEqual([
      { job_name: 'demo', run_id: '2', tile_id: 'a', hits: 300, capped: false, failed: false, fetched: true, area: 0.5 },
      { job_name: 'demo', run_id: '2', tile_id: 'b', hits: 500, capped: true, failed: false, fetched: true, area: 0.5 },
      { job_name: 'demo', run_id: '2', tile_id: 'c', hits: 0, capped: false, failed: true, fetched: true, area: 0.5 },
    ]);
  });

  it('docs/schema.md names fid, not the text area_key, as the integer key GDAL uses for efa.operating_areas', async () => {
    const doc = await readFile(schemaDocPath, 'utf8');
    const section = doc.slice(doc.indexOf('### efa.operating_areas'), doc.indexOf('###', doc.indexOf('### efa.operating_areas') + 4));
    expect(section).toContain('fid is the integer key for QGIS and GDAL');
    expect(section).not.toMatch(/area_key[^|]*single-column key/);
  });

  it('refreshes again (concurrently on a server, the views being populated) and sees new rows', async () => {
    await t.db.exec(`UPDATE efa.pins SET deleted_at = now() WHERE pin_key = 's2'`);
    await refreshAnalystViews(t.db);
    const r = await sql<{ stop_id: string }>`SELECT stop_id FROM efa.stop_summary ORDER BY stop_id`.execute(t.db.kysely);
    expect(r.rows.map((x) => x.stop_id)).toEqual(['s1']);
  });
});
