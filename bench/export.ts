/**
 * Peak memory of `efa-sync export` over 1,000,000 stops, per format: the export must stream, so its
 * peak RSS stays within 300 MB whatever the size of the relation. Each export runs as the built CLI
 * in a child process (`dist/src/cli/main.js export`), whose peak RSS the kernel reports
 * (`process.resourceUsage().maxRSS`, written by bench/peak-rss.ts preloaded into the child).
 * The database is a scratch one on the local PostgreSQL (the engine's own memory is the server's,
 * not the export's). Baseline, measured in the same run: the same export of 100,000 stops; a
 * streaming export's peak barely moves with ten times the rows.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openDb } from '../src/db/index.js';
import { EXPORT_FORMATS, type ExportFormat } from '../src/export/index.js';
import { createScratchDb, int, mb, postgresReachable, ratio, secs, type BenchLine, type BenchResult, type ScratchDb } from './util.js';

const mainJs = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const preload = fileURLToPath(new URL('./peak-rss.js', import.meta.url));
const RSS_BUDGET = 300e6;

async function seededDb(stops: number): Promise<ScratchDb> {
  const scratch = await createScratchDb('efa_bench_export');
  const db = await openDb(scratch.url);
  try {
    await migrate(db);
    await db.exec(`
      INSERT INTO efa.runs (run_id, job_name, job_hash, source, status) VALUES (1, 'bench', 'h', 'bench', 'succeeded');
      INSERT INTO efa.pins (source, pin_key, type, id, name, mot_types, geom, attrs, content_hash, first_run, changed_run, global_id)
      SELECT 'bench', 'STOP:' || i, 'STOP', 'de:08111:' || i, 'Haltestelle ' || i, ARRAY[1, 3, i % 11],
             ST_SetSRID(ST_MakePoint(5.9 + (i % 1000) * 0.009, 47.3 + (i / 1000) * 0.0077), 4326),
             jsonb_build_object('locality', 'Ort ' || (i % 500)), md5(i::text), 1, 1,
             CASE WHEN i % 3 = 0 THEN 'de:08111:' || i END
      FROM generate_series(1, ${stops}) i;
      ANALYZE efa.pins;`);
  } finally {
    await db.close();
  }
  return scratch;
}

interface Measured {
  readonly format: ExportFormat;
  readonly rows: number;
  readonly ms: number;
  readonly peakRss: number;
  readonly bytes: number;
}

async function exportOnce(url: string, format: ExportFormat, dir: string): Promise<Measured> {
  const out = join(dir, `current_stops.${format}`);
  const rssFile = join(dir, `rss-${format}`);
  const t0 = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', preload, mainJs, 'export', '--db', url, '--relation', 'current_stops', '--out', out, '--json'], {
      env: { ...process.env, EFA_BENCH_PEAK_RSS_FILE: rssFile, EFA_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let o = '';
    let e = '';
    child.stdout.on('data', (d: Buffer) => (o += d.toString()));
    child.stderr.on('data', (d: Buffer) => (e += d.toString()));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, stdout: o, stderr: e }));
  });
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`export --format ${format} exited ${code}: ${stderr.slice(-800)}`);
  const summary = JSON.parse(stdout) as { rows: number };
  const peakRss = Number(await readFile(rssFile, 'utf8'));
  const bytes = (await stat(out)).size;
  await rm(out, { force: true });
  return { format, rows: summary.rows, ms, peakRss, bytes };
}

export async function benchExport(opts: { stops?: number; baselineStops?: number } = {}): Promise<BenchResult> {
  const stops = opts.stops ?? 1_000_000;
  const baselineStops = opts.baselineStops ?? 100_000;
  const reach = await postgresReachable();
  if (!reach.ok) return { lines: [], notes: [`PostgreSQL not reachable (${reach.reason}): export bench skipped`] };
  const dir = await mkdtemp(join(tmpdir(), 'efa-bench-export-'));
  const dbs: ScratchDb[] = [];
  const lines: BenchLine[] = [];
  const notes: string[] = [];
  try {
    let t = performance.now();
    const big = await seededDb(stops);
    dbs.push(big);
    console.log(`seeded ${int(stops)} stops in ${secs(performance.now() - t)}`);
    t = performance.now();
    const small = await seededDb(baselineStops);
    dbs.push(small);
    console.log(`seeded ${int(baselineStops)} stops in ${secs(performance.now() - t)}`);
    const table: Record<string, string>[] = [];
    for (const format of EXPORT_FORMATS) {
      const base = await exportOnce(small.url, format, dir);
      const m = await exportOnce(big.url, format, dir);
      if (m.rows !== stops) throw new Error(`export --format ${format} wrote ${m.rows} rows, expected ${stops}`);
      const within = m.peakRss <= RSS_BUDGET;
      table.push({
        format,
        rows: int(m.rows),
        time: secs(m.ms),
        'rows/s': int(m.rows / (m.ms / 1000)),
        'file size': mb(m.bytes),
        'peak RSS': mb(m.peakRss),
        [`peak RSS at ${int(baselineStops)}`]: mb(base.peakRss),
        budget: within ? 'within 300 MB' : 'OVER 300 MB',
      });
      lines.push({ metric: `${format}: peak RSS, ${int(stops)} rows`, value: mb(m.peakRss), baseline: `${mb(base.peakRss)} at ${int(baselineStops)}`, ratio: ratio(m.peakRss, base.peakRss) });
      lines.push({ metric: `${format}: rows/s`, value: int(m.rows / (m.ms / 1000)), baseline: int(base.rows / (base.ms / 1000)), ratio: ratio(m.rows / m.ms, base.rows / base.ms) });
      if (!within) notes.push(`export --format ${format} peaked at ${mb(m.peakRss)} for ${int(stops)} rows: over the 300 MB budget`);
    }
    console.table(table);
  } finally {
    await Promise.allSettled(dbs.map((d) => d.drop()));
    await rm(dir, { recursive: true, force: true });
  }
  return { lines, notes };
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const n = Number(process.argv[2] ?? '') || undefined;
  const result = await benchExport(n ? { stops: n, baselineStops: Math.max(1, Math.round(n / 10)) } : {});
  console.table(result.lines);
  for (const note of result.notes ?? []) console.log(`note: ${note}`);
}
