/**
 * CoordInfo request counts of a full sweep: midpoint quadtree versus the adaptive splitter versus
 * the floor ceil(pins / max), for a cold start (night 1) and a plan from night 1's pins (night 2).
 * Counts, not times: the fake server answers in memory.
 */
import {
  adaptiveSplitter,
  clusteredWorld,
  coldStartProbeGrid,
  coldStartRootSplit,
  floorRequests,
  foundPins,
  nightTwo,
  quadtreeSplitter,
} from '../test/tiling/harness.js';

export async function benchTiling(): Promise<void> {
  const minTileSizeDeg = 0.0005;
  const rows: Record<string, string | number>[] = [];
  for (const [seed, max] of [[1, 500], [2, 500], [3, 250], [4, 1000], [5, 100]] as const) {
    const w = clusteredWorld(50_000, seed);
    const p = { max, minTileSizeDeg };
    const floor = floorRequests(w.lon.length, max);
    const quad = coldStartRootSplit(w, quadtreeSplitter(w, p), max);
    const ours = coldStartRootSplit(w, adaptiveSplitter(w, p), max);
    const grid = coldStartProbeGrid(w, adaptiveSplitter(w, p), max);
    const quad2 = nightTwo(w, foundPins(w, quad), quadtreeSplitter(w, p), max, minTileSizeDeg);
    const ours2 = nightTwo(w, foundPins(w, ours), adaptiveSplitter(w, p), max, minTileSizeDeg);
    const ratio = (n: number): string => `${n} (${(n / floor).toFixed(2)}x)`;
    rows.push({
      seed,
      max,
      floor,
      'n1 quadtree': ratio(quad.requests),
      'n1 adaptive': ratio(ours.requests),
      'n1 probe+grid': ratio(grid.requests),
      'n2 k-d plan': `${ratio(ours2.requests)} capped ${ours2.cappedRequests}`,
      'n2 plan after quadtree n1': ratio(quad2.requests),
    });
  }
  console.log('CoordInfo requests, clustered world of 50,000 pins (ratio to the floor)');
  console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTiling();
