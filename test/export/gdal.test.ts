import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
// The GeoJSON reader alone: flatgeobuf's index also loads its OpenLayers reader, which efa-sync installs empty.
import * as geojson from 'flatgeobuf/lib/mjs/geojson.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';
import { runBuiltCli, spawnBuiltCli } from '../helpers/built-cli.js';
import { hasGdal, ogrinfo, seedExportDb, STOPS } from './seed.js';

/** The stops whose point lies in 9.1..9.12, 48.1..48.12 (stop i at 9 + i/1000, 48 + i/1000): 100..120. */
const BOX = '9.1,48.1,9.12,48.12';
const IN_BOX = 21;

/** Issue 30, point 10: export beside ogr2ogr (filters, several layers, spatial indexes, GDAL's conventions). */
describe('efa-sync export: filters, layers and indexes GDAL sees', { timeout: 300_000 }, () => {
  let target: TestDbUrl;
  let dir: string;
  const cli = (args: readonly string[]) => runBuiltCli(['export', '--db', target.url, '--log-format', 'json', ...args]);

  beforeAll(async () => {
    target = await createTestDbUrl();
    await seedExportDb(target.url);
    dir = await mkdtemp(join(tmpdir(), 'efa-export-gdal-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await target.drop();
  });

  it('--where keeps the rows a condition selects; --bbox those whose geometry meets the box', async () => {
    const out = join(dir, 'where.csv');
    const r = await cli(['--relation', 'current_stops', '--out', out, '--where', "name LIKE 'Stop 1_' OR fid = 250"]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readFile(out, 'utf8')).trimEnd().split('\r\n')).toHaveLength(1 + 10 + 1);
    const boxed = join(dir, 'box.gpkg');
    expect((await cli(['--relation', 'current_stops', '--out', boxed, '--bbox', BOX])).code).toBe(0);
    const gpkg = new Database(boxed, { readonly: true });
    try {
      expect(gpkg.prepare('SELECT count(*) AS n, min(fid) AS lo, max(fid) AS hi FROM current_stops').get()).toEqual({ n: IN_BOX, lo: 100, hi: 120 });
    } finally {
      gpkg.close();
    }
    const both = await cli(['--relation', 'current_stops', '--out', join(dir, 'both.csv'), '--bbox', BOX, '--where', 'fid % 2 = 0']);
    expect(both.code).toBe(0);
    expect((await readFile(join(dir, 'both.csv'), 'utf8')).trimEnd().split('\r\n')).toHaveLength(1 + 11);
  });

  it('--where refuses what is not a row condition: subqueries, other tables, functions with effects, more statements', async () => {
    const refusals: [string, string][] = [
      ['fid IN (SELECT run_id FROM efa.runs)', 'SubLink is not allowed'],
      ["pg_read_file('/etc/passwd') IS NOT NULL", 'function pg_read_file is not allowed'],
      ['pg_sleep(10) IS NULL', 'function pg_sleep is not allowed'],
      ['true); DROP TABLE efa.pins; --', 'not a valid SQL condition'],
      ['true) UNION SELECT 1 FROM efa.runs WHERE (true', 'must be one condition'],
      ['true) ORDER BY (1', 'must be one condition'],
      ['true) --', 'not a valid SQL condition'],
      ['efa.runs.run_id = 1', 'is not a column of the relation'],
      ['nosuch = 1', 'is not a column of the relation; its columns: fid, source,'],
      ["set_config('role', 'x', false) = 'x'", 'function set_config is not allowed'],
      ['fid OPERATOR(pg_catalog.=) 1', 'operator'],
      [`${'('.repeat(3000)}true${')'.repeat(3000)}`, '--where'],
    ];
    for (const [where, message] of refusals) {
      const r = await cli(['--relation', 'current_stops', '--out', join(dir, 'refused.csv'), '--where', where]);
      expect(r.code, `${where}: ${r.stderr}`).toBe(2);
      expect(r.stderr, where).toContain(message);
    }
    // A trailing comment is harmless: it ends at the line break the condition is embedded with, so the
    // --bbox condition after it still applies (fid 1 lies outside the box: no row).
    const commented = await cli(['--relation', 'current_stops', '--out', join(dir, 'ok.csv'), '--where', 'fid = 1 --', '--bbox', BOX, '--json']);
    expect(commented.code, commented.stderr).toBe(0);
    expect(JSON.parse(commented.stdout)).toMatchObject({ rows: 0 });
  });

  it('writes several relations into one GeoPackage, one layer each, each with an R-tree GDAL uses', async () => {
    const out = join(dir, 'layers.gpkg');
    const r = await cli(['--relation', 'current_stops', '--relation', 'operating_areas', '--relation', 'lines', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { layers: { relation: string; rows: number }[] };
    expect(summary.layers).toEqual([
      expect.objectContaining({ relation: 'efa.current_stops', rows: STOPS }),
      expect.objectContaining({ relation: 'efa.operating_areas', rows: 1 }),
      expect.objectContaining({ relation: 'efa.lines', rows: 0 }),
    ]);
    const gpkg = new Database(out, { readonly: true });
    try {
      expect(gpkg.prepare('SELECT count(*) AS n FROM rtree_current_stops_geom').get()).toEqual({ n: STOPS });
      expect(gpkg.prepare("SELECT count(*) AS n FROM gpkg_extensions WHERE extension_name = 'gpkg_rtree_index'").get()).toEqual({ n: 2 });
    } finally {
      gpkg.close();
    }
    const fgb = await cli(['--relation', 'current_stops', '--relation', 'lines', '--out', join(dir, 'two.fgb')]);
    expect(fgb.code).toBe(2);
    expect(fgb.stderr).toContain('--format gpkg');
    if (hasGdal) {
      const layers = await ogrinfo(out, '-so');
      expect(layers).toMatch(/current_stops \(Point\)/);
      expect(layers).toMatch(/operating_areas \(Multi Polygon\)/);
      expect(layers).toMatch(/lines/);
      for (const layer of ['current_stops', 'operating_areas']) {
        expect(await ogrinfo(out, '-sql', `SELECT HasSpatialIndex('${layer}', 'geom')`)).toContain('HasSpatialIndex (Integer) = 1');
      }
      expect((await ogrinfo(out, '-al', '-q', '-spat', ...BOX.split(','))).match(/OGRFeature\(current_stops\)/g)).toHaveLength(IN_BOX);
    }
  });

  it('writes a FlatGeobuf with a packed Hilbert R-tree that readers search', async () => {
    const out = join(dir, 'indexed.fgb');
    expect((await cli(['--relation', 'current_stops', '--out', out])).code).toBe(0);
    let header: HeaderMeta | undefined;
    const bytes = new Uint8Array(await readFile(out));
    const found: unknown[] = [];
    const rect = { minX: 9.1, minY: 48.1, maxX: 9.12, maxY: 48.12 };
    // With a rect, the reader walks the file's index (ArrayReader.selectBbox); the header comes from a plain read.
    for await (const f of geojson.deserialize(bytes, { rect })) found.push(f.properties?.['fid']);
    for await (const f of geojson.deserialize(bytes, { headerMetaFn: (h: HeaderMeta) => (header = h) })) expect(f).toBeDefined();
    expect(header?.indexNodeSize).toBe(16);
    expect(header?.featuresCount).toBe(STOPS);
    expect(found.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: IN_BOX }, (_, i) => 100 + i));
    if (hasGdal) {
      const all = await ogrinfo(out, '-al', '-q');
      expect(all.match(/OGRFeature\(current_stops\)/g)).toHaveLength(STOPS);
      const spat = await ogrinfo(out, '-al', '-q', '-spat', ...BOX.split(','));
      expect(spat.match(/OGRFeature\(current_stops\)/g)).toHaveLength(IN_BOX);
      expect(spat).not.toMatch(/ERROR/);
    }
  });

  it.runIf(hasGdal)('writes the CSV geometry in a WKT column that GDAL reads as the geometry', async () => {
    const out = join(dir, 'stops.csv');
    expect((await cli(['--relation', 'current_stops', '--out', out])).code).toBe(0);
    // GDAL reads CSV fields as strings (no .csvt): the key compares as text.
    const feature = await ogrinfo(out, '-al', '-q', '-where', "fid = '12'");
    expect(feature).toMatch(/^\s+POINT \(9\.012 48\.012\)$/m);
    const areas = join(dir, 'areas.csv');
    expect((await cli(['--relation', 'operating_areas', '--out', areas])).code).toBe(0);
    expect(await ogrinfo(areas, '-al', '-q')).toMatch(/^\s+MULTIPOLYGON \(\(\(9 48,/m);
  });

  it('writes one-dimensional arrays to Parquet as lists', async () => {
    const out = join(dir, 'arrays.parquet');
    expect((await cli(['--relation', 'op_arrays', '--out', out])).code).toBe(0);
    const file = await asyncBufferFromFile(out);
    const metadata = await parquetMetadataAsync(file);
    expect(metadata.schema.find((s) => s.name === 'ints')?.converted_type).toBe('LIST');
    const rows = await parquetReadObjects({ file });
    expect(rows[0]).toMatchObject({ id: 1, ints: [1, 2, null], bigs: [9007199254740993n], names: ['a', 'b,c', null] });
    const stops = join(dir, 'stops.parquet');
    expect((await cli(['--relation', 'current_stops', '--out', stops, '--where', 'fid = 7'])).code).toBe(0);
    expect((await parquetReadObjects({ file: await asyncBufferFromFile(stops) }))[0]).toMatchObject({ mot_types: [1, 7] });
  });

  it.runIf(dbKind() === 'pglite')('while serve holds the embedded database, says --db can point at the server', async () => {
    const server = spawnBuiltCli(['serve', '--db', target.url, '--port', '0']);
    server.stdin.end();
    let log = '';
    server.stderr.on('data', (d: Buffer) => (log += d.toString()));
    server.stdout.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise((resolve) => server.on('close', resolve));
    try {
      for (let i = 0; i < 600 && !/psql|listening|5432|127\.0\.0\.1:\d+/.test(log); i++) await new Promise((r) => setTimeout(r, 100));
      const r = await cli(['--relation', 'current_stops', '--out', join(dir, 'held.csv')]);
      expect(r.code, log).toBe(4);
      expect(r.stderr).toContain('Export through the server instead: --db \\"postgresql://postgres@127.0.0.1:');
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
});
