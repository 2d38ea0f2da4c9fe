/**
 * Whole runs at scale: a first run and an unchanged night two that store 200,000 and 1,000,000 pins
 * on PostgreSQL (BENCH_PG_URL) and 200,000 on PGlite, beside their floor. (Until 2026-11-24 a case
 * was the simulated world's size, of which the job stores half: its "1M" stored 500,332 pins.)
 *
 * Each run is the real CLI in its own process (`efa-sync run <job> --db … --base-url <sim> --json`),
 * and the simulator another (`efa-sync sim --size N`), so the run's peak RSS (VmHWM, polled from
 * /proc) is the CLI's alone. The run's phases come from its summary (`phases`: the sweep, with the
 * writer's time in it; `finaliseS`; `durationS`, the whole run). The floor of a night is
 *   replay   the night's own CoordInfo requests (efa.run_tiles: every tile it asked, split ones too)
 *            sent again through the same client (createJobClient: rate limit, parse) at the same
 *            concurrency to the same simulator, which answers from memory, with no database;
 *   COPY     one raw COPY of the stored rows into a table indexed as efa.pins (LIKE … INCLUDING ALL).
 * The job is CoordInfo only (STOP + POI_POINT, maxPerRequest 1000) with the default minTileSizeDeg.
 * A phase that runs longer than BENCH_SCALE_PHASE_LIMIT_S (default 600) is stopped and reported so.
 * BENCH_SCALE_CASES picks cases, e.g. `pg:200000,pglite:200000` (default pg:200000,pg:1000000,pglite:200000);
 * a third part names the dialect the simulator answers and the job reads (`pg:200000:xml`, default json),
 * and cases that differ only in it are compared night by night (issue 46: xml within 1.1x of legacy).
 * Times are printed against the floor, never asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { copyField } from '../src/db/copy.js';
import { openDb } from '../src/db/open.js';
import type { Db } from '../src/db/connect.js';
import { validateJob, type JobInput } from '../src/job/index.js';
import { DEFAULT_REGION } from '../src/sim/index.js';
import type { RunSummary } from '../src/run/index.js';
import type { SimDialect } from '../src/sim/render/index.js';
import { caseName, dialectRatios, parseCases, type CaseResult, type NightResult, type ScaleCase } from './scale-cases.js';
import { createJobClient } from '../src/run/client.js';
import { coordRequest } from '../src/sweep/nightly/coord.js';
import { drainQueue } from '../src/sweep/nightly/queue.js';
import { inStratum, makeTile } from '../src/tiling/geo.js';
import type { BBox, Tile } from '../src/tiling/index.js';
import { createLogger } from '../src/util/log.js';
import { copyColumns } from './bench-pins.js';
import { peakRssOf, startSimProcess, stopChild } from './run-memory.js';
import { adminPgUrl, int, mb, postgresReachable, scratchDb, secs, type BenchLine, type BenchResult } from './util.js';

const today = '2026-11-22';
const mainJs = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** Simulator pins per stored object of the job below (STOP + POI_POINT are half the world). */
const WORLD_PER_STORED = 2;

function jobInput(size: number, baseUrl: string, dialect: SimDialect | undefined): JobInput {
  return {
    name: `bench-scale-${size}`,
    baseUrl,
    ...(dialect === undefined ? {} : { dialect }),
    region: { bbox: [...DEFAULT_REGION] },
    rateLimit: { requestsPerSecond: 500, concurrency: 8, retries: 2, timeoutMs: 60_000 },
    // The default minTileSizeDeg on purpose: a dense world must not end partial for want of a smaller tile.
    sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 1000 } },
  };
}

/**
 * The CLI's run in a child process: its summary (stdout, --json), its peak RSS, and its phases
 * watched on its log (the "finalising" line ends the sweep), each held to `limitMs`.
 */
async function runCli(jobFile: string, dbUrl: string, simUrl: string, limitMs: number, onStop: () => Promise<void>): Promise<Omit<NightResult, 'night'>> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [mainJs, 'run', jobFile, '--db', dbUrl, '--base-url', simUrl, '--json', '--log-format', 'json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const tail: string[] = [];
  let phase: 'sweep' | 'finalisation' = 'sweep';
  let sweepS: number | undefined;
  let phaseStarted = performance.now();
  createInterface({ input: child.stderr }).on('line', (line) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    const done = /sweeps done after ([\d.]+) s/.exec(line);
    if (done) {
      sweepS = Number(done[1]);
      phase = 'finalisation';
      phaseStarted = performance.now();
    }
  });
  let peak = 0;
  let stopped: string | undefined;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssOf(child.pid) ?? 0);
    if (stopped === undefined && performance.now() - phaseStarted > limitMs) {
      stopped = `${phase} ran past ${secs(limitMs)}; stopped`;
      console.log(`  ${stopped}`);
      // The run's statement outlives the process (issue 17, point 3): the caller cancels it on the server.
      void stopChild(child).then(onStop);
    }
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearInterval(poll);
  const wallMs = performance.now() - t0;
  const rss = { ...(peak > 0 ? { peakRss: peak } : {}), ...(sweepS !== undefined ? { sweepS } : {}) };
  if (stopped !== undefined) return { status: 'stopped', stopped, wallMs, ...rss };
  const last = stdout.trim().split('\n').pop() ?? '';
  try {
    const summary = JSON.parse(last) as RunSummary;
    return { status: summary.status, wallMs, summary, ...rss };
  } catch {
    throw new Error(`the run exited ${code} without a JSON summary; its last log lines:\n${tail.join('\n')}`);
  }
}

/**
 * The CoordInfo tiles a run asked (any outcome but pending, and only those a request answered: a
 * pilot's strata and blocks are recorded split without one), from their ids
 * (`depth/minLon,minLat,maxLon,maxLat`, then `:TYPES` for a stratum's tile), with their types.
 */
async function askedTiles(db: Db, runId: string): Promise<Tile[]> {
  const rows = await db.kysely
    .selectFrom('efa.run_tiles')
    .select(['tile_id', 'depth', 'types'])
    .where('run_id', '=', runId)
    .where('operation', '=', 'coordInfo')
    .where('status', '!=', 'pending')
    .where('attempts', '>', 0)
    .execute();
  return rows.map((r) => {
    const box = r.tile_id.slice(r.tile_id.indexOf('/') + 1).split(':')[0]!;
    const bbox = box.split(',').map(Number) as unknown as BBox;
    return inStratum(makeTile(bbox, Number(r.depth)), r.types ?? undefined);
  });
}

/** The night's requests again, through the run's client, at its concurrency, answered by the simulator's memory. */
async function replay(input: JobInput, tiles: readonly Tile[]): Promise<number> {
  const job = validateJob(input, 'bench job');
  const cfg = job.sweeps.coord;
  if (!cfg) throw new Error('the scale job has no coord sweep');
  const { client } = createJobClient(job, { log: createLogger({ level: 'error', format: 'json' }) });
  const t0 = performance.now();
  await drainQueue(tiles, job.rateLimit.concurrency, async (tile) => {
    await client.coordInfoBox(coordRequest(cfg, tile));
    return [];
  });
  return performance.now() - t0;
}

/** The stored pins as COPY text, read in pages by fid (text casts: COPY reads them back as they were). */
async function pinsAsCopyText(db: Db): Promise<{ chunks: string[]; rows: number }> {
  const chunks: string[] = [];
  let rows = 0;
  let after = '0';
  const cols = sql.raw(copyColumns.map((c) => `${c}::text AS ${c}`).join(', '));
  for (;;) {
    // Not "fid::text AS fid": ORDER BY would then sort the text alias, and pages would overlap.
    const page = await sql<Record<string, string | null> & { page_key: string }>`
      SELECT fid::text AS page_key, ${cols} FROM efa.pins WHERE fid > ${after}::bigint ORDER BY fid LIMIT 50000`.execute(db.kysely);
    if (page.rows.length === 0) break;
    let chunk = '';
    for (const r of page.rows) chunk += copyColumns.map((c) => copyField(r[c] ?? null)).join('\t') + '\n';
    chunks.push(chunk);
    rows += page.rows.length;
    after = page.rows[page.rows.length - 1]!.page_key;
  }
  return { chunks, rows };
}

/** One raw COPY of the stored rows into a table with efa.pins' columns, constraints and indexes. */
async function rawCopy(db: Db): Promise<{ ms: number; rows: number }> {
  const { chunks, rows } = await pinsAsCopyText(db);
  await sql`CREATE SCHEMA IF NOT EXISTS bench`.execute(db.kysely);
  await sql`DROP TABLE IF EXISTS bench.pins_copy`.execute(db.kysely);
  await sql`CREATE TABLE bench.pins_copy (LIKE efa.pins INCLUDING ALL)`.execute(db.kysely);
  const t0 = performance.now();
  await db.transaction((tx) => tx.copyIn('bench.pins_copy', copyColumns, chunks));
  const ms = performance.now() - t0;
  await sql`DROP TABLE bench.pins_copy`.execute(db.kysely);
  return { ms, rows };
}

/** Ends what is still running on the scratch database (a stopped run's statement goes on otherwise). */
async function cancelBackends(dbName: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminPgUrl });
  await c.connect();
  try {
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  } finally {
    await c.end();
  }
}

async function measureCase(c: ScaleCase, limitMs: number): Promise<CaseResult> {
  const dir = mkdtempSync(join(tmpdir(), 'efa-bench-scale-'));
  const scratch = c.db === 'pg' ? scratchDb('efa_bench_scale') : undefined;
  // The job sweeps STOP and POI_POINT, half of the simulator's pins (src/sim/generate-pins.ts): a
  // world twice the case's size is one where the run stores about the case's number of objects.
  const sim = startSimProcess(c.size * WORLD_PER_STORED, c.dialect);
  const nights: NightResult[] = [];
  let copy: { ms: number; rows: number } | undefined;
  try {
    await scratch?.create();
    const { url: simUrl, startMs } = await sim.ready;
    console.log(`${caseName(c)}: ${int(c.size)} pins to store: a simulated world of ${int(c.size * WORLD_PER_STORED)} pins ready in ${secs(startMs)}`);
    const dbUrl = scratch?.url ?? `pglite:${join(dir, 'db')}`;
    const input = jobInput(c.size, simUrl, c.dialect);
    const jobFile = join(dir, `bench-scale-${c.size}.json`);
    writeFileSync(jobFile, JSON.stringify(input, null, 2));
    const onStop = async (): Promise<void> => {
      if (scratch) await cancelBackends(scratch.name).catch((e: unknown) => console.error(`cancelling the run's statements failed: ${String(e)}`));
    };
    for (const night of [1, 2] as const) {
      const r = await runCli(jobFile, dbUrl, simUrl, limitMs, onStop);
      const s = r.summary;
      console.log(
        `  night ${night}: ${r.status} in ${secs(r.wallMs)} (process)` +
          (r.sweepS !== undefined && !s ? `, sweeps done after ${r.sweepS} s` : '') +
          (s ? `, durationS ${s.durationS}, phases ${JSON.stringify(s.phases)}, ${int(s.coord?.requests ?? 0)} CoordInfo requests for ${int(s.coord?.pins ?? 0)} pins, ${s.capped.length} capped` : '') +
          (r.peakRss ? `, peak RSS ${mb(r.peakRss)}` : ''),
      );
      if (!s) {
        nights.push({ night, ...r });
        break; // a stopped night one leaves nothing for night two to compare with
      }
      const db = await openDb(dbUrl);
      let tiles: Tile[];
      try {
        tiles = await askedTiles(db, s.runId);
        if (night === 1) {
          copy = await rawCopy(db);
          console.log(`  raw COPY of ${int(copy.rows)} rows: ${secs(copy.ms)}`);
        }
      } finally {
        await db.close();
      }
      const replayMs = await replay(input, tiles);
      console.log(`  replay of ${int(tiles.length)} requests: ${secs(replayMs)}`);
      nights.push({ night, ...r, replayMs, replayRequests: tiles.length });
    }
    return { c, nights, ...(copy ? { copyMs: copy.ms, copyRows: copy.rows } : {}) };
  } catch (e) {
    return { c, nights, error: e instanceof Error ? e.message : String(e) };
  } finally {
    await stopChild(sim.child);
    await scratch?.drop().catch((e: unknown) => console.error(`dropping ${scratch.name} failed: ${String(e)}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');

export async function benchScale(): Promise<BenchResult> {
  const cases = parseCases(process.env['BENCH_SCALE_CASES'] ?? 'pg:200000,pg:1000000,pglite:200000');
  const limitMs = Number(process.env['BENCH_SCALE_PHASE_LIMIT_S'] ?? 600) * 1000;
  const notes: string[] = [];
  const reach = await postgresReachable();
  const results: CaseResult[] = [];
  for (const c of cases) {
    if (c.db === 'pg' && !reach.ok) {
      notes.push(`${caseName(c)} skipped: PostgreSQL not reachable (${reach.reason}); set BENCH_PG_URL`);
      continue;
    }
    results.push(await measureCase(c, limitMs));
  }
  const rows: Record<string, string>[] = [];
  const lines: BenchLine[] = [];
  for (const r of results) {
    if (r.error) notes.push(`${caseName(r.c)} failed: ${r.error}`);
    for (const n of r.nights) {
      const s = n.summary;
      const p = s?.phases;
      const finaliseS = s?.finaliseS;
      // The whole run: from its start to the end of its finalisation, as durationS now is.
      const runMs = s ? s.durationS * 1000 : undefined;
      const floorMs = n.replayMs !== undefined && r.copyMs !== undefined ? n.replayMs + r.copyMs : undefined;
      const label = `${caseName(r.c)} night ${n.night}`;
      rows.push({
        run: label,
        status: n.stopped ?? n.status,
        'pins / capped': s ? `${int(s.coord?.pins ?? 0)} / ${s.capped.length}` : '',
        'coord req (x floor)': s?.coord ? `${int(s.coord.requests)} (${s.coord.ratio}x)` : '',
        'sweep s': p ? p.sweepS.toFixed(1) : n.sweepS !== undefined ? n.sweepS.toFixed(1) : '',
        'load s (in sweep)': p ? p.loadS.toFixed(1) : '',
        'finalise s': finaliseS !== undefined ? finaliseS.toFixed(1) : '',
        'run s': runMs !== undefined ? (runMs / 1000).toFixed(1) : secs(n.wallMs),
        'replay s': n.replayMs !== undefined ? (n.replayMs / 1000).toFixed(1) : '',
        'COPY s': r.copyMs !== undefined ? (r.copyMs / 1000).toFixed(1) : '',
        'run/floor': runMs !== undefined && floorMs ? `${(runMs / floorMs).toFixed(2)}x` : '',
        'finalise share': finaliseS !== undefined && runMs ? pct(finaliseS * 1000, runMs) : '',
        'peak RSS': n.peakRss !== undefined ? mb(n.peakRss) : '?',
      });
      if (runMs !== undefined && floorMs) {
        lines.push({ metric: `${label}: whole run`, value: secs(runMs), baseline: `floor ${secs(floorMs)} (replay + COPY)`, ratio: `${(runMs / floorMs).toFixed(2)}x` });
        lines.push({ metric: `${label}: finalisation`, value: secs((finaliseS ?? 0) * 1000), baseline: `run ${secs(runMs)}`, ratio: pct((finaliseS ?? 0) * 1000, runMs) });
      }
      if (n.stopped) lines.push({ metric: `${label}`, value: n.stopped });
      if (n.peakRss !== undefined) lines.push({ metric: `${label}: peak RSS (CLI process)`, value: mb(n.peakRss) });
    }
  }
  lines.push(...dialectRatios(results));
  console.table(rows);
  console.log('targets: run/floor <= 1.6x, finalise share <= 10 %, peak RSS <= 300 MB at 1M pins on PostgreSQL');
  return { lines, notes };
}

// `node dist/bench/scale.js` runs it alone, as `npm run bench -- --only scale` does.
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const r = await benchScale();
  for (const n of r.notes ?? []) console.log(`note: ${n}`);
}

