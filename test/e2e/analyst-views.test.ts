import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

/** The views BI tools and map servers use as they are, and operating areas marked (or clipped) by region. */
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.1, 48.72, 9.2, 48.79] as const;

describe('analyst views and operating areas by region', () => {
  let sim: Simulator;
  let t: TestDb;
  const job = (name: string, clipToRegion: boolean) =>
    inlineJob({
      name,
      baseUrl: sim.url,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 400, concurrency: 4 },
      sweeps: {
        coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 200, parking: { objectTypes: 'all', info: true, realtime: true } },
        opArea: { mode: 'ALL', geometry: true, clipToRegion },
      },
    });
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 2000, today });
    t = await openTestDb();
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('marks each operating area inside the region or not, and clipToRegion keeps only those inside', async () => {
    expect((await runJob({ loaded: job('areas-all', false), db: t.db, log: silent, today })).status).toBe('succeeded');
    expect((await runJob({ loaded: job('areas-clipped', true), db: t.db, log: silent, today })).status).toBe('succeeded');
    const r = await sql<{ source: string; inside: number; outside: number }>`
      SELECT source, count(*) FILTER (WHERE in_region)::int AS inside, count(*) FILTER (WHERE NOT in_region)::int AS outside
      FROM efa.operating_areas GROUP BY source ORDER BY source`.execute(t.db.kysely);
    const all = r.rows.find((x) => x.source === 'areas-all')!;
    const clipped = r.rows.find((x) => x.source === 'areas-clipped')!;
    expect(all.outside, 'the simulated world has areas away from this region').toBeGreaterThan(0);
    expect(clipped).toMatchObject({ inside: all.inside, outside: 0 });
    // in_region is the geometry's own answer.
    const wrong = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM efa.operating_areas
      WHERE in_region IS DISTINCT FROM ST_Intersects(geom, ST_MakeEnvelope(${region[0]}, ${region[1]}, ${region[2]}, ${region[3]}, 4326))`.execute(t.db.kysely);
    expect(wrong.rows[0]?.n).toBe(0);
  }, 300_000);

  it('current views: live rows only, numeric lon/lat, an integer key, parking fields as columns', async () => {
    const k = t.db.kysely;
    const stops = await sql<{ fid: string; lon: number; lat: number; n: number }>`
      SELECT min(fid)::text AS fid, min(lon) AS lon, min(lat) AS lat, count(*)::int AS n FROM efa.current_stops`.execute(k);
    expect(typeof stops.rows[0]?.lon).toBe('number');
    expect(stops.rows[0]?.n).toBeGreaterThan(0);
    const live = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins WHERE type = 'STOP' AND deleted_at IS NULL`.execute(k);
    expect(stops.rows[0]?.n).toBe(live.rows[0]?.n);
    const parking = await sql<{ n: number; kinds: number; capacities: number; free: number }>`
      SELECT count(*)::int AS n, count(kind)::int AS kinds, count(capacity)::int AS capacities, count(free_places)::int AS free FROM efa.current_parking`.execute(k);
    expect(parking.rows[0]?.n).toBeGreaterThan(0);
    expect(parking.rows[0]).toMatchObject({ kinds: parking.rows[0]?.n, capacities: parking.rows[0]?.n, free: parking.rows[0]?.n });
    const areas = await sql<{ n: number; named: number }>`SELECT count(*)::int AS n, count(provider_name)::int AS named FROM efa.current_operating_areas`.execute(k);
    expect(areas.rows[0]?.n).toBeGreaterThan(0);
    expect(areas.rows[0]?.named).toBe(areas.rows[0]?.n);
    // A single-column integer primary key on every geometry table.
    const keys = await sql<{ rel: string; cols: string }>`
      SELECT c.relname::text AS rel, string_agg(a.attname || ':' || format_type(a.atttypid, a.atttypmod), ',') AS cols
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
      WHERE n.nspname = 'efa' AND i.indisprimary AND c.relname IN ('pins', 'operating_areas') GROUP BY c.relname ORDER BY 1`.execute(k);
    expect(keys.rows).toEqual([{ rel: 'operating_areas', cols: 'fid:bigint' }, { rel: 'pins', cols: 'fid:bigint' }]);
  });
});
