/** Builds generated worlds of several sizes and prints build time, memory growth and box-query time. */
import { generateWorld } from '../src/sim/index.js';
import type { BenchLine, BenchResult } from './util.js';

export async function benchSimWorld(sizes: readonly number[] = [100_000, 1_000_000]): Promise<BenchResult> {
  const lines: BenchLine[] = [];
  const builds: { size: number; ms: number; heap: number }[] = [];
  for (const size of sizes) {
    (globalThis as { gc?: () => void }).gc?.();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    const world = generateWorld({ seed: 1, size, today: '2026-11-22' });
    const buildMs = performance.now() - t0;
    const m1 = process.memoryUsage();
    builds.push({ size, ms: buildMs, heap: m1.heapUsed - m0.heapUsed });
    console.log(
      `sim-world size=${size}: build ${buildMs.toFixed(0)} ms, heap +${((m1.heapUsed - m0.heapUsed) / 1e6).toFixed(1)} MB, ` +
        `rss +${((m1.rss - m0.rss) / 1e6).toFixed(1)} MB, stops ${world.stops().length}, lines ${world.lines().length}`,
    );
    // A ~550 m x 550 m tile in the dense centre and one at the sparse edge, each timed warm.
    for (const [label, box] of [['centre', [9.176, 48.775, 9.1835, 48.78]], ['edge', [9.27, 48.70, 9.2775, 48.705]]] as const) {
      let n = 0;
      for (const _ of world.pinsInBox(box)) n++;
      const t = performance.now();
      const reps = 20;
      for (let r = 0; r < reps; r++) for (const _ of world.pinsInBox(box)) n++;
      const queryMs = (performance.now() - t) / reps;
      console.log(`sim-world size=${size}: box query ${label} ${(n / (reps + 1)).toFixed(0)} pins, ${queryMs.toFixed(2)} ms`);
      if (size === sizes[sizes.length - 1]) {
        lines.push({ metric: `sim-world ${size} pins: box query ${label}`, value: `${queryMs.toFixed(2)} ms (${(n / (reps + 1)).toFixed(0)} pins)` });
      }
    }
  }
  // The largest world against the smallest, both built in this run.
  const [small, big] = [builds[0], builds[builds.length - 1]];
  if (small && big && big !== small) {
    lines.unshift(
      { metric: `sim-world ${big.size} pins: build`, value: `${big.ms.toFixed(0)} ms`, baseline: `${small.size}: ${small.ms.toFixed(0)} ms`, ratio: `${(big.ms / small.ms).toFixed(2)}x` },
      {
        metric: `sim-world ${big.size} pins: heap growth`,
        value: `${(big.heap / 1e6).toFixed(1)} MB`,
        baseline: `${small.size}: ${(small.heap / 1e6).toFixed(1)} MB`,
        ratio: small.heap > 0 ? `${(big.heap / small.heap).toFixed(2)}x` : 'n/a',
      },
    );
  }
  return { lines };
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) void benchSimWorld();
