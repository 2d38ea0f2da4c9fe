/**
 * Peak memory of a run over a large world: the whole world must never be held in memory.
 *
 * Each measurement runs in its own Node process (a fresh heap, so one run's peak RSS does not carry
 * into the next), and the simulator runs in a child of that process (`efa-sync sim`), so its
 * world is not counted. The run is `runJob` over the whole world box, CoordInfo only (STOP +
 * POI_POINT, 1000 per request), into a scratch database on the local PostgreSQL. The baseline,
 * measured in the same `npm run bench`, is the same run over a world a tenth the size: bounded
 * memory means the 1M peak heap grows far less than 10x.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDb } from '../src/db/open.js';
import { DEFAULT_REGION } from '../src/sim/index.js';
import { runJob } from '../src/run/index.js';
import { createLogger } from '../src/util/log.js';
import {
  inlineJob,
  scratchDb,
  gc,
  int,
  mb,
  postgresReachable,
  ratio,
  sampleMemory,
  secs,
  type BenchLine,
  type BenchResult,
} from './util.js';

const today = '2026-11-22';
const mainJs = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const thisJs = fileURLToPath(import.meta.url);

/** What one measurement process reports back. */
export interface RunMemoryResult {
  readonly size: number;
  readonly db: string;
  readonly simStartMs: number;
  readonly simPeakRssBytes?: number;
  readonly status: string;
  readonly durationMs: number;
  readonly requests: number;
  readonly coord: { requests: number; pins: number; floor: number; ratio: number } | undefined;
  readonly rowsInserted: number;
  readonly capped: number;
  readonly failures: number;
  /** After a full GC, just before the run. */
  readonly startRss: number;
  readonly startHeap: number;
  readonly peakRss: number;
  readonly peakHeap: number;
  readonly peakExternal: number;
  readonly samples: number;
}

interface ProgressMessage {
  readonly kind: 'progress';
  readonly elapsedMs: number;
  readonly peakRss: number;
  readonly peakHeap: number;
}

/** `efa-sync sim` in a child process (returned at once, for cleanup) and its URL, the first line of its stdout. */
export function startSimProcess(size: number, dialect?: string): { child: ChildProcess; ready: Promise<{ url: string; startMs: number }> } {
  const t0 = performance.now();
  const child = spawn(process.execPath, [mainJs, 'sim', '--port', '0', '--size', String(size), '--today', today, ...(dialect === undefined ? [] : ['--dialect', dialect])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = new Promise<string>((resolve, reject) => {
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`simulator exited (${code}) before printing its URL: ${stderr}`)));
    child.once('error', reject);
  }).then((url) => {
    lines.close();
    child.stdout?.resume();
    return { url, startMs: performance.now() - t0 };
  });
  return { child, ready };
}

/** Peak resident set of a process so far (Linux /proc), or undefined elsewhere. */
export function peakRssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

/** One run over a world of `size` pins, measured in this process. */
export async function measureRun(size: number): Promise<RunMemoryResult> {
  let scratch: ReturnType<typeof scratchDb> | undefined;
  let simChild: ChildProcess | undefined;
  let cleaned: Promise<unknown> | undefined;
  const cleanup = (): Promise<unknown> =>
    (cleaned ??= Promise.allSettled([simChild ? stopChild(simChild) : undefined, scratch?.drop()]).then((done) => {
      for (const d of done) if (d.status === 'rejected') console.error(`run-memory cleanup failed: ${String(d.reason)}`);
    }));
  // Stopped by the parent (time limit): do not leave the simulator or the scratch database behind.
  const onTerm = (): void => {
    // Dropping the database cuts the run's connections; a client without an error listener would
    // crash this process before the simulator is stopped (see the held connection of db.lockJob).
    process.on('uncaughtException', (e) => console.error(`run-memory: while stopping: ${e.message}`));
    void cleanup().then(() => process.exit(143));
  };
  process.once('SIGTERM', onTerm);
  try {
    const reach = await postgresReachable();
    if (reach.ok) {
      scratch = scratchDb('efa_bench_run');
      await scratch.create();
    }
    const started = startSimProcess(size);
    simChild = started.child;
    const sim = { child: started.child, ...(await started.ready) };
    const db = await openDb(scratch?.url ?? 'pglite:memory');
    try {
      const loaded = inlineJob({
        name: `bench-run-${size}`,
        baseUrl: sim.url,
        region: { bbox: [...DEFAULT_REGION] },
        rateLimit: { requestsPerSecond: 500, concurrency: 8, retries: 2, timeoutMs: 60_000 },
        // The dense centre of a 1M world holds more than 1000 STOP + POI_POINT pins in a 0.002° tile.
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 1000, minTileSizeDeg: 0.0005 } },
      });
      gc();
      const start = process.memoryUsage();
      const sampler = sampleMemory(100);
      const t0 = performance.now();
      // Peaks so far, for the parent to print if the run overruns its time limit.
      const progress = setInterval(() => {
        const p = sampler.peaks();
        const m: ProgressMessage = { kind: 'progress', elapsedMs: performance.now() - t0, peakRss: p.rss, peakHeap: p.heapUsed };
        process.send?.(m);
      }, 5000);
      let summary: Awaited<ReturnType<typeof runJob>>;
      try {
        summary = await runJob({ loaded, db, log: createLogger({ level: 'error', format: 'json' }), today });
      } finally {
        clearInterval(progress);
      }
      const durationMs = performance.now() - t0;
      const peaks = sampler.stop();
      const pins = (summary.stats as { pins?: { inserted?: number } }).pins?.inserted ?? 0;
      return {
        size,
        db: db.kind,
        simStartMs: sim.startMs,
        ...(peakRssOf(sim.child.pid) !== undefined ? { simPeakRssBytes: peakRssOf(sim.child.pid) } : {}),
        status: summary.status,
        durationMs,
        requests: summary.requests,
        coord: summary.coord,
        rowsInserted: pins,
        capped: summary.capped.length,
        failures: summary.failures.length,
        startRss: start.rss,
        startHeap: start.heapUsed,
        peakRss: peaks.rss,
        peakHeap: peaks.heapUsed,
        peakExternal: peaks.external,
        samples: peaks.samples,
      };
    } finally {
      await db.close();
    }
  } finally {
    await cleanup();
    process.off('SIGTERM', onTerm);
  }
}

/** Runs measureRun(size) in a fresh Node process and returns what it reports. */
function measureInChild(size: number, timeoutMs: number): Promise<RunMemoryResult> {
  return new Promise((resolve, reject) => {
    const child = fork(thisJs, ['--measure', String(size)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: RunMemoryResult | undefined;
    let last: ProgressMessage | undefined;
    const timer = setTimeout(() => {
      // The measurement process stops its simulator and drops its database on SIGTERM (see measureRun).
      child.kill('SIGTERM');
      const sofar = last ? ` (after ${secs(last.elapsedMs)}: peak heap ${mb(last.peakHeap)}, peak RSS ${mb(last.peakRss)})` : '';
      reject(new Error(`the run over ${int(size)} pins did not finish within ${secs(timeoutMs)}; stopped${sofar}`));
    }, timeoutMs);
    child.on('message', (m: RunMemoryResult | ProgressMessage) => {
      if ('kind' in m) last = m;
      else result = m;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new Error(`measurement process for ${size} pins exited with ${code} without a result`));
    });
  });
}

export interface RunMemoryOptions {
  readonly baselineSize?: number;
  readonly size?: number;
  /** Per measurement process (the baseline gets at most `baselineTimeoutMs`). */
  readonly timeoutMs?: number;
  readonly baselineTimeoutMs?: number;
}

export async function benchRunMemory(opts: RunMemoryOptions = {}): Promise<BenchResult> {
  const baselineSize = opts.baselineSize ?? 100_000;
  const size = opts.size ?? 1_000_000;
  const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
  const baselineTimeoutMs = opts.baselineTimeoutMs ?? 2 * 60_000;
  const notes: string[] = [];
  const reach = await postgresReachable();
  if (!reach.ok) {
    const note = `PostgreSQL not reachable (${reach.reason}): runs write to an in-process PGlite, whose memory (about 1 GB) is counted`;
    console.log(note);
    notes.push(note);
  }
  const results: RunMemoryResult[] = [];
  for (const s of [baselineSize, size]) {
    console.log(`run over a ${int(s)}-pin world (simulator in a child process, run in a fresh process) …`);
    // The baseline takes seconds; when it hangs, the large run would hang too: stop early, skip it.
    const limit = s === baselineSize ? Math.min(timeoutMs, baselineTimeoutMs) : timeoutMs;
    const r = await measureInChild(s, limit).catch((e: unknown) => {
      const why = e instanceof Error ? e.message : String(e);
      throw new Error(s === baselineSize ? `${why}; the ${int(size)}-pin run was skipped` : why);
    });
    results.push(r);
    console.log(
      `  ${r.status} in ${secs(r.durationMs)} (simulator start ${secs(r.simStartMs)}): ${int(r.requests)} requests, ` +
        `${int(r.coord?.pins ?? 0)} pins, coordInfo ${int(r.coord?.requests ?? 0)} vs floor ${int(r.coord?.floor ?? 0)} (${r.coord?.ratio ?? '?'}x)` +
        `${r.capped ? `, ${r.capped} capped tiles` : ''}${r.failures ? `, ${r.failures} failed units` : ''}`,
    );
  }
  const [base, big] = results;
  if (!base || !big) return { lines: [], notes };
  console.table(
    results.map((r) => ({
      pins: int(r.size),
      db: r.db,
      status: r.status,
      run: secs(r.durationMs),
      requests: r.requests,
      'coord req/floor': `${r.coord?.requests ?? 0}/${r.coord?.floor ?? 0} (${r.coord?.ratio ?? '?'}x)`,
      'pins stored': r.coord?.pins ?? 0,
      'rss start': mb(r.startRss),
      'rss peak': mb(r.peakRss),
      'heap start': mb(r.startHeap),
      'heap peak': mb(r.peakHeap),
      'ext+buf peak': mb(r.peakExternal),
      'sim rss peak': r.simPeakRssBytes !== undefined ? mb(r.simPeakRssBytes) : '?',
    })),
  );
  const growth = (r: RunMemoryResult): number => r.peakHeap - r.startHeap;
  console.log(
    `peak heap ${int(big.size)}/${int(base.size)} pins: ${ratio(big.peakHeap, base.peakHeap)} ` +
      `(growth over the pre-run heap ${mb(growth(big))} vs ${mb(growth(base))}: ${ratio(growth(big), growth(base))}); ` +
      `peak RSS ${ratio(big.peakRss, base.peakRss)}; the world grew ${ratio(big.size, base.size)}`,
  );
  const label = (r: RunMemoryResult): string => `${int(r.size / 1000)}k`;
  const lines: BenchLine[] = [
    { metric: `run ${label(big)} pins: peak heap`, value: mb(big.peakHeap), baseline: `${label(base)}: ${mb(base.peakHeap)}`, ratio: ratio(big.peakHeap, base.peakHeap) },
    { metric: `run ${label(big)} pins: peak RSS`, value: mb(big.peakRss), baseline: `${label(base)}: ${mb(base.peakRss)}`, ratio: ratio(big.peakRss, base.peakRss) },
    { metric: `run ${label(big)} pins: duration`, value: secs(big.durationMs), baseline: `${label(base)}: ${secs(base.durationMs)}`, ratio: ratio(big.durationMs, base.durationMs) },
    {
      metric: `run ${label(big)} pins: coordInfo requests`,
      value: `${int(big.coord?.requests ?? 0)} (${int(big.coord?.pins ?? 0)} pins)`,
      baseline: `floor ${int(big.coord?.floor ?? 0)}`,
      ratio: `${big.coord?.ratio ?? '?'}x`,
    },
  ];
  if (big.status !== 'succeeded' || base.status !== 'succeeded') notes.push(`run status: ${base.status} / ${big.status}`);
  return { lines, notes };
}

const args = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  if (args[0] === '--measure') {
    // A measurement process: report to the parent over IPC (or print when started by hand).
    const r = await measureRun(Number(args[1]));
    if (process.send) process.send(r);
    else console.log(JSON.stringify(r, null, 2));
  } else {
    await benchRunMemory();
  }
}
