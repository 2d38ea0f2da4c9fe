import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/db/index.js';
import { builtCli, runBuiltCli, type BuiltCliResult } from '../../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../../helpers/db.js';
import { gridStops, pinsBody, startHostileUpstream, type CoordBehaviour, type HostileUpstream, type WirePin } from '../../helpers/hostile-upstream.js';

/**
 * Issue 29.9 and 29.10 through the built CLI: an upstream whose three providers number their
 * vehicles 1…N (as GBFS feeds do), with one vehicle sent twice under one provider and id, and
 * parking objects with impossible figures. Every vehicle is stored once per provider and id, the
 * repeated one is a reject with its reason, and no impossible figure is stored or averaged.
 */
const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const PER_PROVIDER = 40;
const PROVIDERS = ['p0', 'p1', 'p2'];
/** Yesterday, 09:00 UTC: inside the retention and not ahead of the clock whenever the test runs. */
const at = `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T09:00:00Z`;

const spots = gridStops(PER_PROVIDER * PROVIDERS.length + 1, REGION);
/** Vehicle n of each provider, ids 1…N; the last spot holds a second vehicle "1" of p0. */
const vehicles: WirePin[] = spots.map((s, i) => {
  const last = i === spots.length - 1;
  const provider = last ? 'p0' : PROVIDERS[i % PROVIDERS.length];
  const id = last ? '1' : String(Math.floor(i / PROVIDERS.length) + 1);
  return { type: 'SHARING', id, name: `${provider} bike ${id}`, coord: { lat: s.lat, lon: s.lon }, vehicleType: 'BIKE', providerId: provider, available: true };
});

/** Parking objects: the impossible figures of the issue, and honest ones beside them. */
const parkingFigures: { id: string; figures: Record<string, unknown>; stored: { free: number | null; occupied: number | null; capacity: number | null } }[] = [
  { id: 'neg-free', figures: { capacity: 10, realtime: { free: -7, occupied: 3 } }, stored: { free: null, occupied: 3, capacity: 10 } },
  { id: 'huge-free', figures: { capacity: 10, realtime: { free: 1e9, occupied: 0 } }, stored: { free: null, occupied: 0, capacity: 10 } },
  { id: 'neg-occupied', figures: { capacity: 10, realtime: { free: 3, occupied: -5 } }, stored: { free: 3, occupied: null, capacity: 10 } },
  { id: 'neg-capacity', figures: { capacity: -1, realtime: { free: 4 } }, stored: { free: 4, occupied: null, capacity: null } },
  { id: 'text-free', figures: { capacity: 20, realtime: { free: '12', occupied: 8 } }, stored: { free: null, occupied: 8, capacity: 20 } },
  { id: 'honest-a', figures: { capacity: 10, realtime: { free: 5, occupied: 5 } }, stored: { free: 5, occupied: 5, capacity: 10 } },
  { id: 'honest-b', figures: { capacity: 40, realtime: { free: 10, occupied: 30 } }, stored: { free: 10, occupied: 30, capacity: 40 } },
];
const parking: WirePin[] = parkingFigures.map((p, i) => {
  const s = spots[i * 7] ?? spots[0]!;
  return { type: 'PARKING', id: p.id, name: `Parking ${p.id}`, coord: { lat: s.lat, lon: s.lon }, parkingObjectType: 2, ...p.figures };
});

const inBox = (b: readonly number[], p: WirePin): boolean => {
  const c = p.coord as { lat: number; lon: number };
  return c.lon >= b[0]! && c.lon <= b[2]! && c.lat >= b[1]! && c.lat <= b[3]!;
};
/** Vehicles for a vehicle search, parking objects for a parking search, each inside the box asked. */
const world: CoordBehaviour = (q) => pinsBody((q.url.includes('parkingBBLU') ? parking : vehicles).filter((p) => inBox(q.bbox, p)).slice(0, q.max));

describe.skipIf(!existsSync(builtCli))('snapshots of an upstream whose providers repeat ids and whose parking figures are impossible (built CLI)', () => {
  let upstream: HostileUpstream;
  let dir: string;
  let db: TestDbUrl;
  let run: BuiltCliResult;
  let runId: string;

  beforeAll(async () => {
    upstream = await startHostileUpstream(spots, world);
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-snap-hostile-'));
    db = await createTestDbUrl();
    const job = join(dir, 'hostile.json');
    await writeFile(job, JSON.stringify({
      name: 'hostile-snap', baseUrl: upstream.url, region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 200, concurrency: 2, retries: 0, timeoutMs: 5_000 },
      sweeps: { vehicles: { maxPerRequest: 500 }, parking: { realtime: true, maxPerRequest: 500 } },
    }));
    run = await runBuiltCli(['run', job, '--db', db.url, '--json', '--log-format', 'json', '--now', at], {}, 300_000);
    runId = (JSON.parse(run.stdout) as { runId: string }).runId;
  }, 400_000);
  afterAll(async () => {
    await upstream?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores every vehicle once per provider and id, and the repeated one as a reject with its reason', async () => {
    expect(run.code, run.stderr).toBe(0);
    const d = await openDb(db.url);
    try {
      const rows = await sql<{ provider_id: string; n: number; ids: number }>`
        SELECT provider_id, count(*)::int AS n, count(DISTINCT vehicle_key)::int AS ids FROM efa.vehicle_snapshots
        WHERE run_id = ${runId}::bigint GROUP BY provider_id ORDER BY provider_id`.execute(d.kysely);
      expect(rows.rows).toEqual(PROVIDERS.map((p) => ({ provider_id: p, n: PER_PROVIDER, ids: PER_PROVIDER })));
      const snap = await sql<{ status: string; rows: number }>`SELECT status, rows FROM efa.snapshots WHERE run_id = ${runId}::bigint AND kind = 'vehicles'`.execute(d.kysely);
      expect(snap.rows).toEqual([{ status: 'complete', rows: PER_PROVIDER * PROVIDERS.length }]);
      const rejects = await sql<{ reason: string; raw: { id: string; name: string } }>`
        SELECT reason, raw FROM efa.rejects WHERE run_id = ${runId}::bigint AND raw ->> 'type' = 'SHARING'`.execute(d.kysely);
      expect(rejects.rows).toHaveLength(1);
      expect(rejects.rows[0]?.raw.id).toBe('1');
      expect(rejects.rows[0]?.reason).toMatch(/"1".*provider "p0"/);
      // One vehicle per provider and id in the latest view too.
      const latest = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.latest_vehicles WHERE source = 'hostile-snap'`.execute(d.kysely);
      expect(latest.rows[0]?.n).toBe(PER_PROVIDER * PROVIDERS.length);
    } finally {
      await d.close();
    }
    const summary = JSON.parse(run.stdout) as { rejects: number };
    expect(summary.rejects).toBeGreaterThanOrEqual(1 + 5);
  });

  it('stores no impossible parking figure: NULL, with the figure and why in efa.rejects', async () => {
    const d = await openDb(db.url);
    try {
      const rows = await sql<{ parking_key: string; free: number | null; occupied: number | null; capacity: number | null }>`
        SELECT parking_key, free, occupied, capacity FROM efa.parking_snapshots WHERE run_id = ${runId}::bigint ORDER BY parking_key`.execute(d.kysely);
      expect(rows.rows).toEqual(parkingFigures.map((p) => ({ parking_key: p.id, ...p.stored })).sort((a, b) => a.parking_key.localeCompare(b.parking_key)));
      const rejects = await sql<{ key: string; reason: string }>`
        SELECT raw ->> 'id' AS key, reason FROM efa.rejects WHERE run_id = ${runId}::bigint AND raw ->> 'type' = 'PARKING' ORDER BY 1`.execute(d.kysely);
      const reasons = Object.fromEntries(rejects.rows.map((r) => [r.key, r.reason]));
      expect(Object.keys(reasons).sort()).toEqual(['huge-free', 'neg-capacity', 'neg-free', 'neg-occupied', 'text-free']);
      expect(reasons['neg-free']).toContain('realtime.free -7 is below 0');
      expect(reasons['huge-free']).toContain('free places 1000000000 exceed the capacity 10');
      expect(reasons['neg-occupied']).toContain('realtime.occupied -5 is below 0');
      expect(reasons['neg-capacity']).toContain('capacity -1 is below 0');
      expect(reasons['text-free']).toContain('realtime.free "12" is text');
      // The hour's view averages only readings in [0, capacity]: honest-a 0.5, honest-b 0.75, neg-occupied 0.7.
      const hourly = await sql<{ parking_key: string; free_min: number | null; occupancy_avg: string | null }>`
        SELECT parking_key, free_min, occupancy_avg::text FROM efa.parking_occupancy_hourly WHERE job_name = 'hostile-snap' ORDER BY parking_key`.execute(d.kysely);
      const occupancy = Object.fromEntries(hourly.rows.map((h) => [h.parking_key, h.occupancy_avg === null ? null : Number(h.occupancy_avg)]));
      expect(occupancy).toEqual({ 'honest-a': 0.5, 'honest-b': 0.75, 'huge-free': null, 'neg-capacity': null, 'neg-free': null, 'neg-occupied': 0.7, 'text-free': null });
      for (const h of hourly.rows) if (h.free_min !== null) expect(h.free_min).toBeGreaterThanOrEqual(0);
    } finally {
      await d.close();
    }
  });
});
