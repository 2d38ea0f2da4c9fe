/**
 * `npm run bench`: every bench in order, a header each, and a summary table at the end.
 * `--only <name>` (repeatable, or comma-separated) runs just those; `--list` prints the names.
 * Times are printed as ratios against a baseline measured in the same run, never asserted.
 */
import { benchLoader } from './loader.js';
import { benchRunMemory } from './run-memory.js';
import { benchSimWorld } from './sim-world.js';
import { benchTiling } from './tiling.js';
import { gc, header, secs, type BenchResult } from './util.js';
import { benchNights } from './nights.js';
import { benchSnapshots } from './snapshots.js';
import { benchExport } from './export.js';
import { benchScale } from './scale.js';

interface Bench {
  readonly name: string;
  readonly title: string;
  readonly run: () => Promise<BenchResult | void>;
}

const benches: readonly Bench[] = [
  { name: 'sim-world', title: 'sim-world: build time, memory and box queries of generated worlds (100k, 1M pins)', run: () => benchSimWorld() },
  { name: 'tiling', title: 'tiling: CoordInfo requests per answer order and world against the floor (night one, night two)', run: () => benchTiling() },
  { name: 'worlds', title: 'worlds: the tiling matrix on worlds the project did not design (shared world-data), today beside the pilot', run: async () => (await import('./tiling-worlds.js')).benchTilingWorlds() },
  { name: 'loader', title: 'loader: rows/s of the set-based loader beside a plain COPY of the same rows', run: () => benchLoader() },
  { name: 'writer-pace', title: "writer-pace: the run's writer fed tile by tile with a busy event loop, beside a plain COPY of the same rows", run: async () => (await import('./writer-pace.js')).benchWriterPace() },
  { name: 'nights', title: 'nights: CoordInfo requests of night one and night two beside the floor', run: () => benchNights() },
  { name: 'snapshots', title: 'snapshots: requests of a vehicle snapshot against the floor, and rows/s of the snapshot writer beside a raw COPY', run: () => benchSnapshots() },
  { name: 'snapshot-warehouse', title: 'snapshot-warehouse: the dashboard questions on 30 days of 5-minute snapshots written by the snapshot writer, best of 3, and a snapshot write on day 1 beside the last day', run: async () => (await import('./snapshot-warehouse.js')).benchSnapshotWarehouse() },
  { name: 'lake', title: 'lake: export --lake of 30 days of hourly vehicle snapshots, written then re-written (nothing rewritten)', run: async () => (await import('./lake.js')).benchLake() },
  { name: 'dialect-parse', title: 'dialect-parse: records/s of the xml path beside legacy JSON on one world\'s CoordInfo answers, and one 50 MB XML answer', run: async () => (await import('./dialect-parse.js')).benchDialectParse() },
  { name: 'export', title: 'export: peak RSS and rows/s of efa-sync export of 1,000,000 stops per format (baseline: 100,000; budget 300 MB)', run: () => benchExport() },
  { name: 'scale', title: 'scale: whole runs (night one, unchanged night two) at 200k and 1M pins, phase by phase, beside the replay + COPY floor', run: () => benchScale() },
  { name: 'run-memory', title: 'run-memory: peak memory of a run over a 1,000,000-pin world (baseline: 100,000)', run: () => benchRunMemory() },
];

function parseArgs(argv: readonly string[]): { only: Set<string> | undefined; list: boolean } {
  const only = new Set<string>();
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--list') list = true;
    else if (a === '--only') for (const n of (argv[++i] ?? '').split(',')) only.add(n.trim());
    else if (a.startsWith('--only=')) for (const n of a.slice('--only='.length).split(',')) only.add(n.trim());
    else throw new Error(`unknown argument ${a}; usage: bench [--only <name>[,<name>]] [--list]`);
  }
  for (const n of only) {
    if (!benches.some((b) => b.name === n)) throw new Error(`unknown bench "${n}"; benches: ${benches.map((b) => b.name).join(', ')}`);
  }
  return { only: only.size > 0 ? only : undefined, list };
}

async function main(): Promise<number> {
  const { only, list } = parseArgs(process.argv.slice(2));
  if (list) {
    for (const b of benches) console.log(`${b.name.padEnd(12)} ${b.title}`);
    return 0;
  }
  const selected = benches.filter((b) => !only || only.has(b.name));
  gc(); // also makes globalThis.gc available to the benches that measure heap growth
  const t0 = performance.now();
  const done: { bench: Bench; ms: number; result?: BenchResult; error?: string }[] = [];
  for (const bench of selected) {
    header(bench.title);
    const t = performance.now();
    try {
      const result = await bench.run();
      done.push({ bench, ms: performance.now() - t, ...(result ? { result } : {}) });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      console.error(`bench ${bench.name} failed: ${e instanceof Error ? (e.stack ?? error) : error}`);
      done.push({ bench, ms: performance.now() - t, error });
    }
    console.log(`(${bench.name}: ${secs(performance.now() - t)})`);
  }

  header(`summary (${secs(performance.now() - t0)}; ratios against baselines measured in this run)`);
  const rows: Record<string, string>[] = [];
  for (const d of done) {
    if (d.error) rows.push({ bench: d.bench.name, metric: 'FAILED', value: d.error.slice(0, 200), baseline: '', ratio: '' });
    const lines = d.result?.lines ?? [];
    if (lines.length === 0 && !d.error) rows.push({ bench: d.bench.name, metric: 'see its table above', value: '', baseline: '', ratio: '' });
    for (const l of lines) rows.push({ bench: d.bench.name, metric: l.metric, value: l.value, baseline: l.baseline ?? '', ratio: l.ratio ?? '' });
    rows.push({ bench: d.bench.name, metric: 'bench wall time', value: secs(d.ms), baseline: '', ratio: '' });
  }
  console.table(rows);
  for (const d of done) for (const n of d.result?.notes ?? []) console.log(`note (${d.bench.name}): ${n}`);
  return done.some((d) => d.error) ? 1 : 0;
}

process.exitCode = await main();
