/**
 * Night one against night two: CoordInfo requests of a cold run (splitting from the region box)
 * and of the next night (tiles planned from the known pins), both beside the physical floor
 * ceil(pins / maxPerRequest), and the entity rows night two wrote (none, for an unchanged API).
 */
import { sql } from 'kysely';
import { openDb } from '../src/db/open.js';
import { DEFAULT_REGION, startSimulator } from '../src/sim/index.js';
import { runJob, type RunSummary } from '../src/run/index.js';
import { createLogger } from '../src/util/log.js';
import { createScratchDb, inlineJob, postgresReachable, type BenchResult } from './util.js';

const size = 50_000;
const maxPerRequest = 500;

export async function benchNights(): Promise<BenchResult> {
  const reachable = await postgresReachable();
  if (!reachable.ok) return { lines: [], notes: [`nights: PostgreSQL not reachable (${reachable.reason}); skipped`] };
  const sim = await startSimulator({ port: 0, seed: 1, size });
  const scratch = await createScratchDb('efa_bench_nights');
  const db = await openDb(scratch.url);
  try {
    const loaded = inlineJob({
      name: 'nights',
      baseUrl: sim.url,
      region: { bbox: [...DEFAULT_REGION] },
      rateLimit: { requestsPerSecond: 500, concurrency: 8 },
      sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest, minTileSizeDeg: 0.0005 } },
    });
    const log = createLogger({ level: 'warn', format: 'json' });
    const nights: RunSummary[] = [];
    for (let i = 0; i < 2; i++) nights.push(await runJob({ loaded, db, log }));
    const [one, two] = nights as [RunSummary, RunSummary];
    const written = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.changes WHERE run_id = ${two.runId}::bigint`.execute(db.kysely);
    const floor = two.coord?.floor ?? 0;
    const row = (night: string, s: RunSummary) => ({
      night,
      coordRequests: s.coord?.requests ?? 0,
      floor,
      ratio: ((s.coord?.requests ?? 0) / floor).toFixed(2),
      durationS: s.durationS,
    });
    console.log(`${size} pins in the world, ${two.coord?.pins} of the swept types, maxPerRequest ${maxPerRequest}`);
    console.table([row('night 1 (cold)', one), row('night 2 (planned from known pins)', two)]);
    console.log(`night 2 wrote ${written.rows[0]?.n ?? 0} entity rows (change-log entries)`);
    return {
      lines: [
        { metric: 'nights: night 1 CoordInfo requests', value: String(one.coord?.requests), baseline: `floor ${floor}`, ratio: row('', one).ratio },
        { metric: 'nights: night 2 CoordInfo requests', value: String(two.coord?.requests), baseline: `floor ${floor}`, ratio: row('', two).ratio },
        { metric: 'nights: night 2 rows written', value: String(written.rows[0]?.n ?? 0) },
      ],
    };
  } finally {
    await db.close();
    await sim.stop();
    await scratch.drop();
  }
}
