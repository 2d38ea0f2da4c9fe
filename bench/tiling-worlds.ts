/**
 * The tiling matrix of issue 17 point 7: CoordInfo requests of night one and night two against the
 * floor ceil(pins / max), on worlds the project did not design (bench/worlds/: OSM POIs and parking,
 * GTFS stops, GBFS stations and ParkAPI lots of Herrenberg and Stuttgart, at their real densities),
 * under every answer order of the harness, for today's sweep (every type in one request, the adaptive
 * splitter) beside the pilot (src/tiling/pilot.ts: where the night's first answer shows a type that
 * lies where the rest lies, that type first, the rest planned from its pins; else today's splitter).
 * Two generated worlds whose types share one law (bench/worlds/generated.ts) follow as controls:
 * where types co-locate, the bound is NIGHT_ONE_COLOCATED under every order.
 * Beside them, today's splitter told the true count of every capped tile (a diagnostic: no answer
 * carries that count), which splits today's cost into what the counts and what the cuts cost.
 * Counts, not times. Needs ../shared/world-data (or $EFA_WORLD_DATA).
 */
import { ORDERS, type Order } from '../test/tiling/harness.js';
import { colocatedWorlds } from './worlds/generated.js';
import { findWorldData, sharedWorlds, typesOf } from './worlds/index.js';
import { pilotNights, todayNights, toldCountsNightOne } from './worlds/night-one.js';
import type { BenchLine, BenchResult } from './util.js';

/** Issue 17's bounds for night one where types do not co-locate, per order, and for night two. */
export const NIGHT_ONE_BOUNDS: Record<Order, number> = { distance: 2.5, id: 3.2, insertion: 2.2, random: 2.2 };
export const NIGHT_ONE_COLOCATED = 2.2;
export const NIGHT_TWO_BOUND = 1.15;

export async function benchTilingWorlds(): Promise<BenchResult> {
  const dir = findWorldData();
  if (dir === undefined) throw new Error('no ../shared/world-data beside the checkout: set EFA_WORLD_DATA to the world-data folder (the one holding SOURCES.md)');
  const rows: Record<string, string | number>[] = [];
  const lines: BenchLine[] = [];
  const notes: string[] = [];
  const controls = new Set(colocatedWorlds().map((w) => w.name));
  for (const w of [...sharedWorlds(dir), ...colocatedWorlds()]) {
    const byType = typesOf(w).map((t) => `${t} ${w.points.filter((p) => p.type === t).length}`).join(', ');
    notes.push(`${w.name}${controls.has(w.name) ? ' (control)' : ''}: ${w.points.length} pins (${byType}), max ${w.max}; ${w.about}`);
    let worstToday = 0;
    let worstPilot = 0;
    for (const order of ORDERS) {
      const t = await todayNights(w, order);
      const p = await pilotNights(w, order);
      const told = await toldCountsNightOne(w, order);
      const bound = controls.has(w.name) ? NIGHT_ONE_COLOCATED : NIGHT_ONE_BOUNDS[order];
      const mark = (r: number, b: number): string => (r > b ? ' !' : '');
      const r = (n: number): number => n / t.floor;
      worstToday = Math.max(worstToday, r(t.nightOne) / bound);
      worstPilot = Math.max(worstPilot, r(p.nightOne) / bound);
      rows.push({
        world: `${w.name} ${t.pins}`,
        order,
        floor: t.floor,
        'n1 today': `${t.nightOne} (${r(t.nightOne).toFixed(2)}x)${mark(r(t.nightOne), bound)}`,
        'n1 pilot': `${p.nightOne} (${r(p.nightOne).toFixed(2)}x)${mark(r(p.nightOne), bound)}`,
        // Not a strategy: what today's cuts cost if every capped tile's count were known.
        'n1 told counts': `${told} (${r(told).toFixed(2)}x)${mark(r(told), bound)}`,
        'n2 today': `${t.nightTwo} (${r(t.nightTwo).toFixed(2)}x)${mark(r(t.nightTwo), NIGHT_TWO_BOUND)}`,
        'n2 pilot': `${p.nightTwo} (${r(p.nightTwo).toFixed(2)}x)${mark(r(p.nightTwo), NIGHT_TWO_BOUND)}`,
        unproven: `${t.unproven}/${p.unproven}`,
        'pilot verdict': p.verdict,
      });
    }
    lines.push({ metric: `worlds: ${w.name}, worst night one / its order's bound`, value: `pilot ${worstPilot.toFixed(2)}`, baseline: `today ${worstToday.toFixed(2)}` });
  }
  console.log(
    `CoordInfo requests on shared worlds and two co-located controls (ratio to the floor; ! marks night one above ${Object.entries(NIGHT_ONE_BOUNDS).map(([o, b]) => `${b}x ${o}`).join(', ')} (controls: ${NIGHT_ONE_COLOCATED}x), night two above ${NIGHT_TWO_BOUND}x; unproven = objects no uncapped leaf of their type proved, today/pilot)`,
  );
  console.table(rows);
  return { lines, notes };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTilingWorlds();
