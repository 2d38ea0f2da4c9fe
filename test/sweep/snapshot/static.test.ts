import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData } from '../../../src/report/queries.js';
import { renderReportHtml } from '../../../src/report/html.js';
import { parkingAt, startSimulator, vehiclesAt, type Simulator } from '../../../src/sim/index.js';
import { runJob, type RunSummary } from '../../../src/run/index.js';
import { createLogger } from '../../../src/util/log.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { inlineJob } from '../../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const region = [9.12, 48.74, 9.22, 48.8] as const;
const today = '2026-11-22';
/** The simulator's fixed clock: both snapshots see the same world. */
const clock = '2026-11-22T08:00:00Z';
const inRegion = (lon: number, lat: number): boolean => lon >= region[0] && lon <= region[2] && lat >= region[1] && lat <= region[3];
const kinds = new Set(['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI']);

/**
 * Snapshots against the simulator's world at one fixed clock (vehicles and parking that do not move):
 * every stored row equals the world's object, and none is missing or extra; a snapshot of an
 * unchanged world is planned from the previous one and needs no split.
 */
describe('snapshot sweep against a world that does not move', () => {
  let sim: Simulator;
  let t: TestDb;
  const runs: RunSummary[] = [];
  const job = (name: string, baseUrl: string) =>
    inlineJob({
      name,
      baseUrl,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 200, concurrency: 4 },
      sweeps: {
        vehicles: { maxPerRequest: 60, detail: { budget: 5, spec: true, availability: true } },
        parking: { realtime: true, maxPerRequest: 40 },
      },
    });
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1200, today, clock });
    t = await openTestDb();
    const loaded = job('snap', sim.url);
    for (const at of ['2026-11-22T08:00:00Z', '2026-11-22T08:05:00Z']) {
      runs.push(await runJob({ loaded, db: t.db, log: silent, today, takenAt: new Date(at) }));
    }
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('stores every vehicle of the region once, as the world has it', async () => {
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    const truth = vehiclesAt(sim.world, new Date(clock)).filter((v) => inRegion(v.lon, v.lat) && kinds.has(v.kind));
    expect(truth.length).toBeGreaterThan(50);
    const rows = await sql<{ vehicle_key: string; provider_id: string; kind: string; engine: string | null; x: number; y: number }>`
      SELECT vehicle_key, provider_id, kind, engine, ST_X(geom) AS x, ST_Y(geom) AS y FROM efa.vehicle_snapshots
      WHERE run_id = ${runs[1]?.runId}::bigint ORDER BY vehicle_key`.execute(t.db.kysely);
    const byKey = new Map(rows.rows.map((r) => [r.vehicle_key, r]));
    expect(byKey.size).toBe(truth.length);
    for (const v of truth) {
      const row = byKey.get(v.id);
      expect(row, v.id).toBeDefined();
      expect(row?.provider_id).toBe(v.providerId);
      expect(row?.kind).toBe(v.kind);
      if (v.engine !== null) expect(row?.engine).toBe(v.engine);
      expect(row?.x).toBeCloseTo(v.lon, 6);
      expect(row?.y).toBeCloseTo(v.lat, 6);
    }
  });

  it('never stores a vehicle as a pin', async () => {
    const pins = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins`.execute(t.db.kysely);
    expect(pins.rows[0]?.n).toBe(0);
  });

  it('stores every parking object with its occupancy', async () => {
    const truth = parkingAt(sim.world, new Date(clock)).filter((p) => inRegion(p.lon, p.lat));
    const rows = await sql<{ parking_key: string; capacity: number; free: number }>`
      SELECT parking_key, capacity, free FROM efa.parking_snapshots WHERE run_id = ${runs[1]?.runId}::bigint`.execute(t.db.kysely);
    expect(rows.rows.length).toBe(truth.length);
    const keys = new Set(rows.rows.map((r) => r.parking_key));
    const byKey = new Map(rows.rows.map((r) => [r.parking_key, r]));
    for (const p of truth) expect({ in: keys.has(p.id), capacity: byKey.get(p.id)?.capacity ?? null, free: byKey.get(p.id)?.free ?? null }, p.id).toEqual({ in: true, capacity: p.capacity, free: p.free });
  });

  it('plans the second snapshot of the unchanged world from the first: no split, close to the floor', () => {
    const [first, second] = runs.map((r) => r.snapshots?.find((s) => s.kind === 'vehicles'));
    expect(second).toBeDefined();
    // vehSF keeps other objects out of the answers; the plan holds 90 % of max per tile.
    expect(second?.others).toBe(0);
    expect(runs[1]?.units['vehicles']?.split).toBe(0);
    expect(second?.requests).toBeLessThanOrEqual(first?.requests ?? 0);
    expect(second?.requests).toBeLessThanOrEqual(Math.ceil((second?.floor ?? 0) / 0.9) + 1);
    expect(second?.detailRequests).toBe(5);
  });

  it('reports the latest snapshot\'s vehicles on the map and availability over time', async () => {
    const data = await loadReportData(t.db, runs[1]?.runId);
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE run_id = ${runs[1]?.runId}::bigint`.execute(t.db.kysely);
    expect(data.layers.vehicles?.total).toBe(rows.rows[0]?.n);
    expect(data.snapshots?.series.map((p) => p.status)).toEqual(['complete', 'complete']);
    const html = renderReportHtml(data);
    expect(html).toContain('Sharing vehicles over time');
    expect(html).toMatch(/<svg class="chart availability"[^]*<polyline/);
    // The layer's name says whose vehicles they are: "Sharing vehicles of <source> (latest snapshot)".
    expect(html).toContain(`'Sharing vehicles' + of + ' (latest snapshot)'`);
  });
});
