import { readdir, readFile, rm, stat, writeFile, mkdtemp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { LAKE_LOCK, type LakeManifest } from '../../src/lake/index.js';
import { changeWorld, startSimulator, type Simulator } from '../../src/sim/index.js';
import { builtCli, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { fencedBlocks } from '../docs/markdown.js';

/**
 * `export --lake` through the BUILT CLI, read back with DuckDB as an analyst would: snapshots at
 * five instants over three UTC days and two nights (so history holds versions), then the lake
 * written day by day. DuckDB's counts per day equal the warehouse's, a filter on day reads one
 * day's file, the WKB points are the stored coordinates, a second export rewrites nothing, and an
 * export killed mid-partition leaves no partition behind that the next one does not complete.
 */
const region = [9.12, 48.74, 9.22, 48.8] as const;
/**
 * Three UTC days ending three days before the machine's: a `--now` must lie within the job's retention
 * (90 days) of the clock and not ahead of it, so fixed dates would fail once they are old enough.
 */
const days = [5, 4, 3].map((back) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10)) as [string, string, string];
const instants = [`${days[0]}T03:00:00Z`, `${days[0]}T15:00:00Z`, `${days[1]}T08:00:00Z`, `${days[2]}T06:00:00Z`, `${days[2]}T18:00:00Z`];

interface Summary { written: number; kept: number; pending: number; rows: number }

async function duck(): Promise<{ all: (q: string) => Promise<Record<string, unknown>[]>; close: () => void }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  return {
    all: async (q: string) => (await con.runAndReadAll(q)).getRowObjects() as Record<string, unknown>[],
    close: () => (con.closeSync(), inst.closeSync()),
  };
}

/** Every file under the lake, relative, with its modification time. */
async function files(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out.set(p.slice(dir.length + 1), (await stat(p)).mtimeMs);
  }
  return out;
}

/** The point of a little-endian WKB Point. */
function wkbPoint(b: Uint8Array): [number, number] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  expect(v.getUint8(0)).toBe(1);
  expect(v.getUint32(1, true)).toBe(1);
  return [v.getFloat64(5, true), v.getFloat64(13, true)];
}

describe.skipIf(!existsSync(builtCli))('export --lake: bad usage named before a database is opened (built CLI)', () => {
  it('names the option and what to do; --relation and --out are required only without --lake', async () => {
    const cases: [string[], RegExp][] = [
      [['--lake', 'lake', '--relation', 'stops'], /--relation: not with --lake, which writes every relation of the lake \(choose them with --relations\)/],
      [['--lake', 'lake', '--since', '2026-02-30'], /--since: expected a day as YYYY-MM-DD \(UTC\), got \\"2026-02-30\\"/],
      [['--lake', 'lake', '--since', '2026-11-21', '--until', '2026-11-20'], /--until: 2026-11-20 is before --since 2026-11-21/],
      [['--lake', 'lake', '--relations', 'vehicle_snapshots,pins'], /--relations: \\"pins\\" is not in the lake; valid: vehicle_snapshots, parking_snapshots, pins_history/],
      [['--relation', 'stops', '--out', 'x.parquet', '--since', '2026-11-20'], /--since: only with --lake <dir>; the one-file export takes --relation and --out/],
      [['--out', 'x.parquet'], /--relation: required to export one relation to a file \(or give --lake <dir> to write the lake\)/],
    ];
    const dir = await mkdtemp(join(tmpdir(), 'efa-sync-lake-usage-'));
    try {
      for (const [args, message] of cases) {
        const r = await runBuiltCli(['export', '--db', `pglite:${join(dir, 'db')}`, '--log-format', 'json', ...args.map((a) => (a === 'lake' ? join(dir, 'lake') : a))]);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toMatch(message);
      }
      // Nothing was opened or created: no database, no lake.
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(!existsSync(builtCli))('export --lake: Hive-partitioned GeoParquet other engines read (built CLI, DuckDB)', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let lake: string;
  /** Tomorrow by the wall clock: the nights' versions ended today, so their day is complete only then. */
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const exportLake = async (now: string, env: NodeJS.ProcessEnv = {}) =>
    runBuiltCli(['export', '--lake', lake, '--db', db.url, '--now', now, '--json', '--log-format', 'json'], env, 300_000);

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-lake-'));
    lake = join(dir, 'lake');
    db = await createTestDbUrl();
    const snapshotJob = join(dir, 'moving.json');
    const nightlyJob = join(dir, 'nightly.json');
    await writeFile(snapshotJob, JSON.stringify({
      name: 'moving', source: 'vvs', baseUrl: sim.url, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 300, concurrency: 4 },
      sweeps: { vehicles: { maxPerRequest: 50 }, parking: { realtime: true, maxPerRequest: 40 } },
    }));
    await writeFile(nightlyJob, JSON.stringify({
      name: 'nightly', source: 'vvs', baseUrl: sim.url, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 300, concurrency: 4 }, sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 100 } },
    }));
    for (const at of instants) {
      sim.setClock(new Date(at));
      const r = await runBuiltCli(['run', snapshotJob, '--db', db.url, '--json', '--now', at], {}, 300_000);
      expect(r.code, r.stderr).toBe(0);
    }
    for (let night = 0; night < 2; night++) {
      if (night > 0) changeWorld(sim.world, 0.1, 7);
      const r = await runBuiltCli(['run', nightlyJob, '--db', db.url, '--json'], {}, 300_000);
      expect(r.code, r.stderr).toBe(0);
    }
  }, 900_000);
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes complete days only, survives a kill mid-partition, and a second export rewrites nothing', async () => {
    // At noon of the third day, that day is today: only the first two are complete.
    const first = await exportLake(`${days[2]}T12:00:00Z`);
    expect(first.code, first.stderr).toBe(0);
    const s1 = JSON.parse(first.stdout) as Summary;
    expect(s1.written).toBe(4); // vehicles and parking, two days each
    expect(s1.pending).toBeGreaterThanOrEqual(3); // the 22nd twice, and the versions the nights ended today
    const m1 = await readFile(join(lake, '_manifest.json'), 'utf8');
    const after1 = await files(lake);
    expect([...after1.keys()].filter((p) => p.includes(`day=${days[2]}`))).toEqual([]);

    // Killed once the first partition of the next export is built, before it is renamed into place.
    const killed = await exportLake(tomorrow, { EFA_SYNC_FAILPOINT: 'lake-partition-built:1' });
    expect(killed.code).toBeNull();
    expect(await readFile(join(lake, '_manifest.json'), 'utf8')).toBe(m1);
    const afterKill = await files(lake);
    const outside = [...afterKill.keys()].filter((p) => !after1.has(p));
    expect(outside.length).toBeGreaterThan(0);
    // The killed export's lock stays behind with its dead pid: the next export takes it over.
    expect(outside.every((p) => p.startsWith('_tmp/') || p === LAKE_LOCK), outside.join(', ')).toBe(true);

    const second = await exportLake(tomorrow);
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout) as Summary;
    expect(s2.kept).toBe(4);
    expect(s2.pending).toBe(0);
    expect(s2.written).toBeGreaterThanOrEqual(3);
    expect(existsSync(join(lake, '_tmp'))).toBe(false);
    // A line per partition, at info level.
    expect(second.stderr.match(/lake: wrote /g)?.length).toBe(s2.written);
    const after2 = await files(lake);
    for (const [p, mtime] of after1) if (p !== '_manifest.json') expect(after2.get(p), p).toBe(mtime);

    const third = await exportLake(tomorrow);
    expect(third.code, third.stderr).toBe(0);
    const s3 = JSON.parse(third.stdout) as Summary;
    expect(s3).toMatchObject({ written: 0, kept: s2.kept + s2.written, pending: 0 });
    expect(await files(lake)).toEqual(after2);

    const manifest = JSON.parse(await readFile(join(lake, '_manifest.json'), 'utf8')) as LakeManifest;
    for (const f of manifest.files) {
      expect(f.path).toBe(`${f.relation}/source=${f.source}/day=${f.day}/part-0.parquet`);
      expect((await stat(join(lake, f.path))).size).toBe(f.bytes);
      expect(f.min_time! <= f.max_time!).toBe(true);
      expect(f.min_time!.slice(0, 10)).toBe(f.day);
      expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(manifest.files.map((f) => f.relation))).toEqual(new Set(['vehicle_snapshots', 'parking_snapshots', 'pins_history']));
  }, 600_000);

  it('answers docs/lake.md\'s DuckDB example with rows', async () => {
    const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'lake.md'), 'utf8');
    const examples = fencedBlocks(doc).filter((b) => b.info === 'sql duckdb');
    expect(examples.length).toBeGreaterThan(0);
    const q = await duck();
    try {
      for (const example of examples) {
        const rows = await q.all(example.code.replaceAll('/data/lake', lake).replace(/;\s*$/, ''));
        expect(rows.length, `docs/lake.md:${example.line}`).toBeGreaterThan(0);
      }
    } finally {
      q.close();
    }
  });

  it('DuckDB reads it: counts per day equal the warehouse\'s, a day filter reads one file, WKB decodes to the stored points', async () => {
    const d = await openDb(db.url);
    let perDay: Map<string, number>;
    let parkingPerDay: Map<string, number>;
    let points: Map<string, [number, number]>;
    let versions: number;
    try {
      const count = async (table: string) =>
        new Map((await sql<{ day: string; n: number }>`SELECT to_char((taken_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n FROM ${sql.raw(table)} GROUP BY 1`.execute(d.kysely)).rows.map((r) => [r.day, r.n]));
      perDay = await count('efa.vehicle_snapshots');
      parkingPerDay = await count('efa.parking_snapshots');
      const pts = await sql<{ k: string; x: number; y: number }>`
        SELECT vehicle_key || '@' || to_char(taken_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS k, ST_X(geom) AS x, ST_Y(geom) AS y FROM efa.vehicle_snapshots`.execute(d.kysely);
      points = new Map(pts.rows.map((r) => [r.k, [Number(r.x), Number(r.y)]]));
      versions = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins_history`.execute(d.kysely)).rows[0]!.n;
    } finally {
      await d.close();
    }
    expect([...perDay.keys()].sort()).toEqual(days);
    expect(versions).toBeGreaterThan(0);

    const q = await duck();
    try {
      const v = `read_parquet('${lake}/vehicle_snapshots/**/*.parquet', hive_partitioning = true)`;
      const counts = await q.all(`SELECT CAST(day AS VARCHAR) AS day, source, count(*)::INTEGER AS n FROM ${v} GROUP BY ALL ORDER BY 1`);
      expect(counts).toEqual(days.map((day) => ({ day, source: 'vvs', n: perDay.get(day) })));
      const parking = await q.all(`SELECT CAST(day AS VARCHAR) AS day, count(*)::INTEGER AS n FROM read_parquet('${lake}/parking_snapshots/**/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY 1`);
      expect(parking).toEqual(days.map((day) => ({ day, n: parkingPerDay.get(day) })));
      const hist = await q.all(`SELECT count(*)::INTEGER AS n FROM read_parquet('${lake}/pins_history/**/*.parquet', hive_partitioning = true)`);
      expect(hist[0]?.['n']).toBe(versions);

      // Partition pruning: with a filter on day, the scan opens that day's file and no other.
      const plan = await q.all(`EXPLAIN ANALYZE SELECT count(*) FROM ${v} WHERE day = '${days[1]}'`);
      const text = plan.map((r) => String(r['explain_value'])).join('\n');
      expect(text).toMatch(/Total Files Read: 1\b/);
      const unfiltered = await q.all(`EXPLAIN ANALYZE SELECT count(*) FROM ${v}`);
      expect(unfiltered.map((r) => String(r['explain_value'])).join('\n')).toMatch(/Total Files Read: 3\b/);

      // The geometry: WKB points, the coordinates the warehouse stores.
      const rows = await q.all(`SELECT vehicle_key, strftime(taken_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S') AS t, geom FROM ${v}`);
      expect(rows.length).toBe(points.size);
      for (const r of rows) {
        const blob = r['geom'] as { bytes: Uint8Array };
        expect(wkbPoint(blob.bytes)).toEqual(points.get(`${String(r['vehicle_key'])}@${String(r['t'])}`));
      }
      // GeoParquet 1.1: the geo key names the WKB column, its type and the bbox of the file.
      const kv = await q.all(`SELECT decode(value) AS value FROM parquet_kv_metadata('${lake}/vehicle_snapshots/source=vvs/day=${days[1]}/part-0.parquet') WHERE decode(key) = 'geo'`);
      const geo = JSON.parse(String(kv[0]?.['value'])) as { version: string; primary_column: string; columns: Record<string, { encoding: string; geometry_types: string[]; bbox: number[] }> };
      expect(geo).toMatchObject({ version: '1.1.0', primary_column: 'geom', columns: { geom: { encoding: 'WKB', geometry_types: ['Point'] } } });
    } finally {
      q.close();
    }
  }, 300_000);
});
