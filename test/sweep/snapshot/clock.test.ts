import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parkingAt, startSimulator, vehiclesAt, type Simulator } from '../../../src/sim/index.js';
import { runJob, type RunSummary } from '../../../src/run/index.js';
import { createLogger } from '../../../src/util/log.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { inlineJob } from '../../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const region = [9.12, 48.74, 9.22, 48.8] as const;
const inRegion = (lon: number, lat: number): boolean => lon >= region[0] && lon <= region[2] && lat >= region[1] && lat <= region[3];
/** The kinds of CoordInfo's vehSF (efa-api.md): what a job without `kinds` asks for. */
const kinds = new Set(['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI']);
const clocks = ['2026-11-23T05:40:00Z', '2026-11-23T08:15:00Z', '2026-11-23T08:25:00Z', '2026-11-23T17:50:00Z', '2026-11-23T23:30:00Z'];

interface VehicleDbRow {
  vehicle_key: string; provider_id: string | null; kind: string | null; location_type: string | null;
  charge_percent: number | null; fuel_percent: number | null; available: boolean | null; x: number; y: number;
}

/**
 * Snapshots of the moving simulator at several clock times: every stored row equals the
 * simulator's truth at that time (vehiclesAt, parkingAt), with nothing missing and nothing extra.
 */
describe('snapshots of a moving world', () => {
  let sim: Simulator;
  let t: TestDb;
  const runs: RunSummary[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500 });
    t = await openTestDb();
    const loaded = inlineJob({
      name: 'moving',
      baseUrl: sim.url,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 300, concurrency: 4 },
      sweeps: {
        vehicles: { maxPerRequest: 50, detail: { budget: 8, spec: true, availability: true } },
        parking: { realtime: true, maxPerRequest: 40 },
      },
    });
    for (const at of clocks) {
      sim.setClock(new Date(at));
      runs.push(await runJob({ loaded, db: t.db, log: silent, takenAt: new Date(at) }));
    }
  }, 600_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('takes a complete snapshot at every clock time', () => {
    expect(runs.map((r) => r.status)).toEqual(clocks.map(() => 'succeeded'));
  });

  it.each(clocks.map((at, i) => [at, i] as const))('stores the vehicles of %s as the simulator has them', async (at, i) => {
    const truth = vehiclesAt(sim.world, new Date(at)).filter((v) => inRegion(v.lon, v.lat) && kinds.has(v.kind));
    expect(truth.length).toBeGreaterThan(20);
    const rows = await sql<VehicleDbRow>`
      SELECT vehicle_key, provider_id, kind, location_type, charge_percent, fuel_percent, available, ST_X(geom) AS x, ST_Y(geom) AS y
      FROM efa.vehicle_snapshots WHERE run_id = ${runs[i]?.runId}::bigint`.execute(t.db.kysely);
    const stored = new Map(rows.rows.map((r) => [r.vehicle_key, r]));
    expect([...stored.keys()].sort()).toEqual(truth.map((v) => v.id).sort());
    for (const v of truth) {
      const r = stored.get(v.id);
      expect(r, v.id).toBeDefined();
      expect({ provider: r?.provider_id, kind: r?.kind, locationType: r?.location_type, available: r?.available }, v.id).toEqual({
        provider: v.providerId, kind: v.kind, locationType: v.locationType, available: v.available,
      });
      expect(r?.charge_percent ?? null, `${v.id} charge`).toBe(v.chargePercent);
      expect(r?.fuel_percent ?? null, `${v.id} fuel`).toBe(v.fuelPercent);
      expect(r?.x, v.id).toBeCloseTo(v.lon, 6);
      expect(r?.y, v.id).toBeCloseTo(v.lat, 6);
    }
    const taken = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE run_id = ${runs[i]?.runId}::bigint AND taken_at = ${new Date(at)}`.execute(t.db.kysely);
    expect(taken.rows[0]?.n).toBe(truth.length);
  });

  it.each(clocks.map((at, i) => [at, i] as const))('stores the parking occupancy of %s as the simulator has it', async (at, i) => {
    const truth = parkingAt(sim.world, new Date(at)).filter((p) => inRegion(p.lon, p.lat));
    expect(truth.length).toBeGreaterThan(5);
    const rows = await sql<{ parking_key: string; capacity: number | null; free: number | null }>`
      SELECT parking_key, capacity, free FROM efa.parking_snapshots WHERE run_id = ${runs[i]?.runId}::bigint`.execute(t.db.kysely);
    const stored = new Map(rows.rows.map((r) => [r.parking_key, r]));
    expect([...stored.keys()].sort()).toEqual(truth.map((p) => p.id).sort());
    for (const p of truth) expect({ capacity: stored.get(p.id)?.capacity ?? null, free: stored.get(p.id)?.free ?? null }, p.id).toEqual({ capacity: p.capacity, free: p.free });
  });

  it('moves: the snapshots differ from one another', async () => {
    const r = await sql<{ n: number }>`SELECT count(DISTINCT (vehicle_key, ST_AsText(geom)))::int AS n FROM efa.vehicle_snapshots`.execute(t.db.kysely);
    const first = runs[0]?.snapshots?.find((s) => s.kind === 'vehicles')?.rows ?? 0;
    expect(r.rows[0]?.n).toBeGreaterThan(first * 1.5);
  });

  it('asks the detail mode within its budget, and its answers agree with the truth', async () => {
    for (const s of runs) expect(s.snapshots?.find((x) => x.kind === 'vehicles')?.detailRequests).toBe(8);
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE detailed`.execute(t.db.kysely);
    expect(r.rows[0]?.n).toBeGreaterThan(0);
    expect(r.rows[0]?.n).toBeLessThanOrEqual(8 * clocks.length);
  });

  it('keeps to the floor ceil(vehicles / max) within the tiling\'s slack once planned from a previous snapshot', () => {
    // 08:15 → 08:25: ten minutes of movement; the plan leaves 10 % headroom.
    const s = runs[2]?.snapshots?.find((x) => x.kind === 'vehicles');
    expect(s?.others).toBe(0);
    expect(s?.requests).toBeLessThanOrEqual(Math.ceil((s?.floor ?? 0) * 1.5) + 1);
  });
});
