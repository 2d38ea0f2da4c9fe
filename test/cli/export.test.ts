import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
// The GeoJSON reader alone: flatgeobuf's index also loads its OpenLayers reader, which efa-sync installs empty.
import * as geojson from 'flatgeobuf/lib/mjs/geojson.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../src/db/index.js';
import pg from 'pg';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { spawnBuiltCli } from '../helpers/built-cli.js';
import { runBuiltCli, type CliResult } from '../helpers/cli.js';

const run = promisify(execFile);
const gdal = spawnSync('ogrinfo', ['--version'], { encoding: 'utf8' });
const hasGdal = gdal.status === 0;
if (!hasGdal) console.warn('export.test: ogrinfo not found (Debian: apt-get install gdal-bin); the GDAL checks are skipped');

/** Stops in the seeded database: more than one batch of 100, so the export streams several. */
const STOPS = 250;
const BATCH = '100';

async function seed(url: string): Promise<void> {
  const db = await openDb(url);
  try {
    await migrate(db);
    await db.exec(`
      INSERT INTO efa.runs (run_id, job_name, job_hash, source, status) VALUES (1, 'seed', 'h', 'seed', 'succeeded');
      INSERT INTO efa.pins (source, pin_key, type, id, name, mot_types, geom, attrs, content_hash, first_run, changed_run, global_id)
      SELECT 'seed', 'stop:' || i, 'STOP', 'de:' || i, 'Stop "' || i || '", Mitte', ARRAY[1, i % 10],
             ST_SetSRID(ST_MakePoint(9 + i * 1e-4, 48 + i * 1e-4), 4326), jsonb_build_object('k', i), 'h', 1, 1,
             CASE WHEN i % 2 = 0 THEN 'de:08111:' || i END
      FROM generate_series(1, ${STOPS}) i;
      INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run, deleted_at)
      VALUES ('seed', 'stop:gone', 'STOP', 'gone', 'Gone', ST_SetSRID(ST_MakePoint(9, 48), 4326), 'h', 1, 1, now());
      INSERT INTO efa.sharing_providers (source, provider_id, name, vehicle_type, content_hash, first_run, changed_run)
      VALUES ('seed', 'p1', 'Bikes', 'bike', 'h', 1, 1);
      INSERT INTO efa.operating_areas (source, area_key, provider_id, area_id, name, geom, content_hash, first_run, changed_run)
      VALUES ('seed', 'p1/a', 'p1', 'a', 'Area A', ST_Multi(ST_MakeEnvelope(9, 48, 9.1, 48.1, 4326)), 'h', 1, 1),
             ('seed', 'p1/b', 'p1', 'b', 'Area B', NULL, 'h', 1, 1);
      REFRESH MATERIALIZED VIEW efa.stop_summary;`);
  } finally {
    await db.close();
  }
}

interface Summary {
  relation: string;
  format: string;
  out: string;
  rows: number;
  key: string | null;
}

async function ogrinfo(file: string, ...args: string[]): Promise<string> {
  const r = await run('ogrinfo', ['-ro', ...args, file], { timeout: 60_000 });
  return r.stdout;
}

// Every test starts the CLI (a PGlite start each on the embedded database) several times.
describe('efa-sync export: one relation to a file, streaming', { timeout: 300_000 }, () => {
  let target: TestDbUrl;
  let dir: string;
  let comments: Map<string, string>;
  const exportCli = (args: readonly string[]): Promise<CliResult> =>
    runBuiltCli(['export', '--db', target.url, '--batch-size', BATCH, '--json', '--log-format', 'json', ...args]);
  const exported = async (args: readonly string[]): Promise<Summary> => {
    const r = await exportCli(args);
    expect(r.stderr).not.toContain('"level":"error"');
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Summary;
  };

  beforeAll(async () => {
    target = await createTestDbUrl();
    await seed(target.url);
    dir = await mkdtemp(join(tmpdir(), 'efa-export-'));
    // The column comments the files must carry, read from the catalog the exports read.
    const db = await openDb(target.url);
    try {
      const result = await sql<{ name: string; comment: string }>`
        SELECT a.attname AS name, col_description(a.attrelid, a.attnum) AS comment FROM pg_attribute a
        WHERE a.attrelid = 'efa.current_stops'::regclass AND a.attnum > 0`.execute(db.kysely);
      comments = new Map(result.rows.map((r) => [r.name, r.comment]));
    } finally {
      await db.close();
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await target.drop();
  });

  it('writes a GeoPackage GDAL reads: count, SRID 4326, fid as its FID, comments in gpkg_data_columns', async () => {
    const out = join(dir, 'stops.gpkg');
    const summary = await exported(['--relation', 'current_stops', '--out', out]);
    expect(summary).toMatchObject({ relation: 'efa.current_stops', format: 'gpkg', rows: STOPS, key: 'fid' });

    const gpkg = new Database(out, { readonly: true });
    try {
      expect(gpkg.pragma('application_id', { simple: true })).toBe(0x47504b47);
      expect(gpkg.prepare('SELECT data_type, srs_id FROM gpkg_contents WHERE table_name = ?').get('current_stops')).toEqual({ data_type: 'features', srs_id: 4326 });
      expect(gpkg.prepare('SELECT geometry_type_name, srs_id FROM gpkg_geometry_columns').get()).toEqual({ geometry_type_name: 'POINT', srs_id: 4326 });
      const described = gpkg.prepare('SELECT column_name, description FROM gpkg_data_columns WHERE table_name = ?').all('current_stops') as { column_name: string; description: string }[];
      expect(described.find((d) => d.column_name === 'fid')?.description).toBe(comments.get('fid'));
      expect(described.find((d) => d.column_name === 'name')?.description).toBe(comments.get('name'));
      const row = gpkg.prepare('SELECT fid, name, mot_types, lon, geom FROM current_stops WHERE fid = 7').get() as { fid: number; name: string; mot_types: string; lon: number; geom: Buffer };
      expect(row).toMatchObject({ fid: 7, name: 'Stop "7", Mitte', mot_types: '[1, 7]' });
      expect(row.lon).toBeCloseTo(9.0007, 9);
      // GeoPackage binary: 'GP', version 0, little-endian without envelope (a point), SRID, then WKB.
      expect(row.geom.subarray(0, 4)).toEqual(Buffer.from([0x47, 0x50, 0, 1]));
      expect(row.geom.readInt32LE(4)).toBe(4326);
      expect(row.geom.readDoubleLE(8 + 5)).toBeCloseTo(9.0007, 9);
    } finally {
      gpkg.close();
    }
  });

  it.runIf(hasGdal)('ogrinfo reads the GeoPackage with the right count, SRID and FID column', async () => {
    const out = join(dir, 'stops-gdal.gpkg');
    await exported(['--relation', 'current_stops', '--out', out]);
    const info = await ogrinfo(out, '-so', '-al');
    expect(info).toContain(`Feature Count: ${STOPS}`);
    expect(info).toContain('ID["EPSG",4326]');
    expect(info).toContain('FID Column = fid');
    expect(info).toContain('Geometry: Point');
    expect(info).not.toMatch(/^(Warning|ERROR)/m);
    const feature = await ogrinfo(out, '-al', '-q', '-where', 'fid = 12');
    expect(feature).toContain('OGRFeature(current_stops):12');
    expect(feature).toContain('POINT (9.0012 48.0012)');
  });

  it.runIf(hasGdal)('ogrinfo reads a FlatGeobuf with the right count and SRID; operating areas keep their MultiPolygons', async () => {
    const stops = join(dir, 'stops.fgb');
    expect((await exported(['--relation', 'efa.current_stops', '--out', stops])).rows).toBe(STOPS);
    const info = await ogrinfo(stops, '-so', '-al');
    expect(info).toContain(`Feature Count: ${STOPS}`);
    expect(info).toContain('ID["EPSG",4326]');
    expect(info).toContain('Geometry: Point');
    const feature = await ogrinfo(stops, '-al', '-q', '-where', 'fid = 12');
    expect(feature).toContain('name (String) = Stop "12", Mitte');
    expect(feature).toContain('POINT (9.0012 48.0012)');

    const areas = join(dir, 'areas.fgb');
    expect((await exported(['--relation', 'operating_areas', '--out', areas])).rows).toBe(2);
    const areaInfo = await ogrinfo(areas, '-al', '-q');
    expect(areaInfo).toContain('MULTIPOLYGON (((9 48,9.0 48.1,9.1 48.1,9.1 48.0,9 48)))');
    expect(areaInfo).toContain('name (String) = Area B');
  });

  it.runIf(!hasGdal)('skips the GDAL checks: ogrinfo is not installed (apt-get install gdal-bin)', () => {
    expect(hasGdal).toBe(false);
  });

  it('writes the FlatGeobuf header with the layer name, the count, EPSG:4326 and the column comments', async () => {
    const out = join(dir, 'header.fgb');
    await exported(['--relation', 'current_stops', '--out', out, '--format', 'fgb']);
    let header: HeaderMeta | undefined;
    const names: string[] = [];
    for await (const f of geojson.deserialize(new Uint8Array(await readFile(out)), { headerMetaFn: (h: HeaderMeta) => (header = h) })) {
      names.push(String(f.properties?.['name']));
    }
    expect(names).toHaveLength(STOPS);
    // In the order of the file's spatial index (Hilbert), not of the key.
    expect(names).toContain('Stop "1", Mitte');
    expect(header?.featuresCount).toBe(STOPS);
    expect(header?.crs?.code).toBe(4326);
    const fid = header?.columns?.find((c) => c.name === 'fid');
    expect(fid?.description).toBe(comments.get('fid'));
    expect(fid?.primary_key).toBe(true);
  });

  it('writes GeoParquet 1.1: geo metadata, WKB geometry, one row group per batch', async () => {
    const out = join(dir, 'stops.parquet');
    await exported(['--relation', 'current_stops', '--out', out]);
    const file = await asyncBufferFromFile(out);
    const metadata = await parquetMetadataAsync(file);
    expect(metadata.num_rows).toBe(BigInt(STOPS));
    // 250 rows fetched 100 at a time: three row groups, never one of the whole relation.
    expect(metadata.row_groups).toHaveLength(3);
    const geo = JSON.parse(metadata.key_value_metadata?.find((kv) => kv.key === 'geo')?.value ?? '{}') as {
      version: string;
      primary_column: string;
      columns: Record<string, { encoding: string; geometry_types: string[]; bbox: number[] }>;
    };
    expect(geo.version).toBe('1.1.0');
    expect(geo.primary_column).toBe('geom');
    expect(geo.columns['geom']?.encoding).toBe('WKB');
    expect(geo.columns['geom']?.geometry_types).toEqual(['Point']);
    expect(geo.columns['geom']?.bbox[0]).toBeCloseTo(9.0001, 9);
    expect(geo.columns['geom']?.bbox[3]).toBeCloseTo(48 + STOPS * 1e-4, 9);
    expect(metadata.schema.find((s) => s.name === 'geom')?.type).toBe('BYTE_ARRAY');
    const commentsKv = JSON.parse(metadata.key_value_metadata?.find((kv) => kv.key === 'efa_sync:comments')?.value ?? '{}') as Record<string, string>;
    expect(commentsKv['fid']).toBe(comments.get('fid'));

    const rows = await parquetReadObjects({ file, rowStart: 150, rowEnd: 151, utf8: true });
    expect(rows[0]).toMatchObject({ fid: 151n, name: 'Stop "151", Mitte', mot_types: [1, 1] });
    // hyparquet decodes the WKB column the geo key names.
    expect(rows[0]?.['geom']).toMatchObject({ type: 'Point' });
  });

  it('writes CSV with lon/lat and the geometry as WKT (the column GDAL reads as geometry)', async () => {
    const stops = join(dir, 'stops.csv');
    await exported(['--relation', 'stops', '--out', stops]);
    const lines = (await readFile(stops, 'utf8')).trimEnd().split('\r\n');
    // efa.stops keeps deleted stops (deleted_at set): one more than the live ones.
    expect(lines).toHaveLength(STOPS + 2);
    const header = lines[0]?.split(',') ?? [];
    expect(header.slice(-3)).toEqual(['lon', 'lat', 'WKT']);
    expect(lines.find((l) => l.startsWith('de:3,'))).toMatch(/"Stop ""3"", Mitte".*,9\.0003,48\.0003,POINT\(9\.0003 48\.0003\)$/);

    const areas = join(dir, 'areas.csv');
    await exported(['--relation', 'current_operating_areas', '--out', areas]);
    const areaLines = (await readFile(areas, 'utf8')).trimEnd().split('\r\n');
    expect(areaLines[0]?.endsWith(',lon,lat,WKT')).toBe(true);
    expect(areaLines).toHaveLength(2);
    expect(areaLines[1]).toContain('"MULTIPOLYGON(((9 48,9 48.1,9.1 48.1,9.1 48,9 48)))"');
  });

  it('efa.stop_summary has numeric lon/lat of its own, like the current_* views', async () => {
    const out = join(dir, 'summary.parquet');
    expect((await exported(['--relation', 'stop_summary', '--out', out])).rows).toBe(STOPS);
    const file = await asyncBufferFromFile(out);
    const rows = await parquetReadObjects({ file, columns: ['fid', 'lon', 'lat'], rowStart: 4, rowEnd: 5 });
    expect(rows[0]?.['fid']).toBe(5n);
    expect(rows[0]?.['lon']).toBeCloseTo(9.0005, 9);
    expect(rows[0]?.['lat']).toBeCloseTo(48.0005, 9);
    // The CSV writer adds no second pair where the relation has its own.
    const csvOut = join(dir, 'summary.csv');
    await exported(['--relation', 'stop_summary', '--out', csvOut]);
    const header = (await readFile(csvOut, 'utf8')).split('\r\n')[0]?.split(',') ?? [];
    expect(header.filter((h) => h === 'lon')).toHaveLength(1);
  });

  it('rejects a relation that is not in efa with exit 2, naming it and listing the valid ones; leaves no file', async () => {
    const r = await exportCli(['--relation', 'stopz', '--out', join(dir, 'bad.gpkg')]);
    expect(r.code).toBe(2);
    const message = (JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '{}') as { msg?: string }).msg ?? '';
    expect(message).toContain('efa has no table or view "stopz"');
    expect(message).toMatch(/valid relations: .*\bcurrent_stops\b.*\boperating_areas\b/);

    const flat = await exportCli(['--relation', 'lines', '--out', join(dir, 'lines.fgb')]);
    expect(flat.code).toBe(2);
    expect(flat.stderr).toContain('efa.lines has no geometry column');

    const format = await exportCli(['--relation', 'lines', '--out', join(dir, 'lines.xlsx')]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format');
    expect((await readdir(dir)).filter((f) => f.startsWith('bad') || f.startsWith('lines') || f.endsWith('.tmp'))).toEqual([]);
  });

  // Issue 45, point 5: a statement left running on the server after its client exited.
  it.skipIf(dbKind() !== 'postgres')('SIGINT during a slow --where: the statement is cancelled on the server before the process exits 130; --statement-timeout bounds it (exit 1)', async () => {
    const slow = 'st_area(st_buffer(geom, 0.001, 1000000)) > 0';
    const out = join(dir, 'slow.csv');
    const child = spawnBuiltCli(['export', '--db', target.url, '--relation', 'stops', '--out', out, '--where', slow, '--log-format', 'json']);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    try {
      const database = decodeURIComponent(new URL(target.url).pathname.slice(1));
      const running = async (): Promise<number> =>
        Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query ILIKE '%st_buffer%' AND pid <> pg_backend_pid()`, [database])).rows[0].n);
      // Waits for the event: the statement is running on the server.
      while ((await running()) === 0) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(130);
      expect(stderr).toContain('its database statement is cancelled');
      // The backend acts on the cancel at GEOS's next interrupt check: waited for as an event. Not
      // cancelled, the statement runs on for a minute or more (250 rows of a 4-million-point buffer).
      const deadline = Date.now() + 20_000;
      while ((await running()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await running()).toBe(0);
    } finally {
      await admin.end();
    }
    const bounded = await exportCli(['--relation', 'stops', '--out', out, '--where', slow, '--statement-timeout', '0.5']);
    expect(bounded.code, bounded.stderr).toBe(1);
    expect(bounded.stderr).toContain('StatementTimeoutError');
    expect(bounded.stderr).toContain('--statement-timeout');
  });
});
