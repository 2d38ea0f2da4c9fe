/**
 * Issue 19, end to end: answers written from the interface's published rapidJSON schema (OPAREA,
 * COORD with PARKING and sharing coordInfoDetails) replayed through `runJob` in `rapidjson` and
 * under `auto`, and what lands in the database compared with the JSON: every id and name verbatim,
 * one provider per operator, operating zones as valid MultiPolygons with their holes and parts,
 * parking figures with their data source and time, vehicles and stations with the schema's fields.
 * The bodies are ours (test/fixtures/rapidjson), written from the schema's field names and enums.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/http/types.js';
import type { JobInput } from '../../src/job/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const takenAt = new Date('2026-11-22T09:00:00Z');
/** Essen and Mülheim an der Ruhr: every object of the fixtures lies inside. */
const bbox: [number, number, number, number] = [6.8, 51.35, 7.2, 51.55];

type Body = Record<string, unknown> & { locations?: Record<string, unknown>[]; operatingAreas?: Record<string, unknown>[] };
const fixture = (name: string): Body => JSON.parse(readFileSync(new URL(`../fixtures/rapidjson/${name}.json`, import.meta.url), 'utf8')) as Body;

function replay(body: unknown): Transport {
  const text = JSON.stringify(body);
  return { send: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: text, durationMs: 1 }) };
}

function job(name: string, source: string, dialect: JobInput['dialect'], sweeps: JobInput['sweeps']) {
  return inlineJob({
    name,
    source,
    baseUrl: 'http://replay.invalid/efa',
    dialect,
    region: { bbox },
    rateLimit: { requestsPerSecond: 1000, concurrency: 2, retries: 1 },
    sweeps,
  });
}

const DIALECTS = ['rapidjson', 'auto'] as const;

describe('rapidJSON answers of the published schema, replayed end to end', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => {
    await t?.dispose();
  });

  describe.each(DIALECTS)('OpArea operatingAreas[] in %s', (dialect) => {
    const body = fixture('oparea');
    const source = `oparea-${dialect}`;
    beforeAll(async () => {
      const summary = await runJob({
        loaded: job(source, source, dialect, { opArea: { mode: 'ALL' } }), db: t.db, log: silent, today, transport: replay(body),
      });
      expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: 'rapidjson' });
    });

    it('one provider per operator, ids and names verbatim, products as vehicle_type, the offers in attrs', async () => {
      const rows = await sql<{ provider_id: string; name: string; vehicle_type: string; attrs: Record<string, unknown> }>`
        SELECT provider_id, name, vehicle_type, attrs FROM efa.sharing_providers WHERE source = ${source} ORDER BY provider_id`.execute(t.db.kysely);
      const operators = new Map<string, string>();
      for (const area of body.operatingAreas ?? []) {
        const operator = area['operator'] as { id: number; name: string };
        if (!operators.has(String(operator.id))) operators.set(String(operator.id), operator.name);
      }
      expect(rows.rows.map((r) => [r.provider_id, r.name])).toEqual([...operators.entries()].sort(([a], [b]) => a.localeCompare(b)));
      const byId = new Map(rows.rows.map((r) => [r.provider_id, r]));
      expect(byId.get('7')?.vehicle_type).toBe('BIKE');
      expect(byId.get('12')?.vehicle_type).toBe('CAR');
      expect(byId.get('15')?.vehicle_type).toBe('TAXI');
      expect(byId.get('7')?.attrs).toMatchObject({
        products: ['bike'], areaTypes: ['freefloating', 'station'], vehicleEngineTypes: ['COMBUSTION', 'ELECTRIC', 'UNKNOWN'], sharingTypes: ['CLASSIC', 'FREEFLOATING'],
      });
    });

    it('one area per operatingAreas item, names verbatim, each zone a valid MultiPolygon with its parts and holes', async () => {
      const rows = await sql<{
        area_key: string; area_id: string; name: string; valid: boolean | null; parts: number | null; holes: number | null;
        x: number | null; y: number | null; in_region: boolean | null; attrs: Record<string, unknown>; geom_type: string | null;
      }>`
        SELECT area_key, area_id, name, ST_IsValid(geom) AS valid, ST_NumGeometries(geom) AS parts,
               ST_NumInteriorRings(ST_GeometryN(geom, 1)) AS holes, ST_X(ST_Centroid(geom)) AS x, ST_Y(ST_Centroid(geom)) AS y,
               in_region, attrs, GeometryType(geom) AS geom_type
        FROM efa.operating_areas WHERE source = ${source} ORDER BY area_key`.execute(t.db.kysely);
      const expected = (body.operatingAreas ?? []).map((a) => ({ key: `${String((a['operator'] as { id: number }).id)}/${String(a['id'])}`, name: a['name'] }));
      expect(rows.rows.map((r) => ({ key: r.area_key, name: r.name }))).toEqual(expected.sort((a, b) => a.key.localeCompare(b.key)));
      const area = new Map(rows.rows.map((r) => [r.area_id, r]));
      // MultiPolygon: Essen with its hole, and Rüttenscheid apart.
      expect(area.get('101')).toMatchObject({ valid: true, geom_type: 'MULTIPOLYGON', parts: 2, holes: 1, in_region: true });
      // 102 was written [lat, lon] (EFA's own order): every value fits both, the job's region decided.
      expect(area.get('102')).toMatchObject({ valid: true, parts: 1, in_region: true });
      expect(area.get('102')?.x).toBeCloseTo(6.89, 2);
      expect(area.get('102')?.y).toBeCloseTo(51.43, 2);
      expect(area.get('102')?.attrs).toMatchObject({ coordOrder: 'latLon', coordOrderBy: 'region' });
      expect(area.get('101')?.attrs).toMatchObject({ coordOrder: 'lonLat', coordOrderBy: 'region', type: 'station', product: 'bike' });
      // The coverage area and the properties stay as sent.
      const sent201 = (body.operatingAreas ?? []).find((a) => a['id'] === 201) as Record<string, unknown>;
      expect(area.get('201')?.attrs).toMatchObject({ coverageArea: sent201['coverageArea'], properties: sent201['properties'] });
      // A point is no area: no geometry, the zone kept as sent.
      expect(area.get('301')).toMatchObject({ valid: null, geom_type: null });
      expect(area.get('301')?.attrs).toMatchObject({ operatingZone: { type: 'Point' }, operatingZoneNotAreal: ['Point'] });
    });
  });

  describe.each(DIALECTS)('parking per coordInfoDetails.parkingDataSet in %s', (dialect) => {
    const body = fixture('parking');
    const nightly = `parking-nightly-${dialect}`;
    const snapshots = `parking-snap-${dialect}`;
    beforeAll(async () => {
      const night = await runJob({
        loaded: job(nightly, nightly, dialect, { coord: { types: ['STOP'], maxPerRequest: 500, parking: { realtime: true } } }),
        db: t.db, log: silent, today, full: true, transport: replay(body),
      });
      expect(night).toMatchObject({ status: 'succeeded', exitCode: 0, dialect: 'rapidjson' });
      const snap = await runJob({
        loaded: job(snapshots, snapshots, dialect, { parking: { realtime: true, maxPerRequest: 500 } }),
        db: t.db, log: silent, today, takenAt, transport: replay(body),
      });
      expect(snap).toMatchObject({ status: 'succeeded', exitCode: 0 });
    });

    const expected = [
      { id: 'parkObj:1001:Essen', name: 'P+R Essen Hauptbahnhof', data_source: 'REALTIME', measured_at: '2026-11-22T08:55:00.000Z', free: 97, capacity: 200 },
      { id: 'parkObj:1002:Essen', name: 'Parkhaus Rüttenscheider Stern', data_source: 'PROFILE', measured_at: '2026-11-22T09:00:00.000Z', free: 40, capacity: 250 },
      { id: 'parkObj:1003:Essen', name: 'Parkplatz Grugahalle ', data_source: 'UNKNOWN', measured_at: null, free: 312, capacity: null },
      { id: 'parkObj:1004:Essen', name: 'Tiefgarage Kennedyplatz', data_source: 'REALTIME', measured_at: '2026-11-22T08:57:30.000Z', free: 12, capacity: 320 },
    ];
    const iso = (at: Date | string | null): string | null => (at === null ? null : new Date(at).toISOString());

    it('efa.current_parking: ids and names verbatim, data source and time; free_places measured only, forecasts apart', async () => {
      const rows = await sql<{ id: string; name: string; data_source: string; measured_at: Date | null; free_places: number | null; profile_free_places: number | null; capacity: number | null }>`
        SELECT id, name, data_source, measured_at, free_places, profile_free_places, capacity FROM efa.current_parking
        WHERE source = ${nightly} ORDER BY id`.execute(t.db.kysely);
      expect(rows.rows.map((r) => ({ ...r, measured_at: iso(r.measured_at) }))).toEqual(expected.map((e) => ({
        id: e.id, name: e.name, data_source: e.data_source, measured_at: e.measured_at, capacity: e.capacity,
        free_places: e.data_source === 'REALTIME' ? e.free : null,
        profile_free_places: e.data_source === 'PROFILE' ? e.free : null,
      })));
    });

    it('efa.parking_snapshots: every figure with its source, time and occupancy fields', async () => {
      const rows = await sql<{ parking_key: string; name: string; data_source: string; measured_at: Date | null; free: number; capacity: number | null; occ: number | null; occ_level: string | null; occ_trend: number | null }>`
        SELECT parking_key, name, data_source, measured_at, free, capacity, occ, occ_level, occ_trend FROM efa.parking_snapshots
        WHERE source = ${snapshots} ORDER BY parking_key`.execute(t.db.kysely);
      expect(rows.rows.map((r) => ({ id: r.parking_key, name: r.name, data_source: r.data_source, measured_at: iso(r.measured_at), free: r.free, capacity: r.capacity })))
        .toEqual(expected);
      expect(rows.rows[0]).toMatchObject({ occ: 51.5, occ_level: 'MEDIUM', occ_trend: 1 });
      expect(rows.rows[1]).toMatchObject({ occ: 84, occ_level: 'HIGH', occ_trend: -1 });
    });
  });

  describe.each(DIALECTS)('sharing vehicles and stations per coordInfoDetails in %s', (dialect) => {
    const body = fixture('sharing');
    const source = `sharing-${dialect}`;
    beforeAll(async () => {
      const snap = await runJob({
        loaded: job(source, source, dialect, { vehicles: { maxPerRequest: 500, detail: { budget: 10, spec: true, availability: true } } }),
        db: t.db, log: silent, today, takenAt, transport: replay(body),
      });
      expect(snap).toMatchObject({ status: 'succeeded', exitCode: 0 });
    });

    it('one row per vehicle, a station standing for the vehicles it lists, with the schema’s fields', async () => {
      const rows = await sql<Record<string, unknown>>`
        SELECT vehicle_key, provider_id, area_id, kind, engine, location_type, charge_percent, fuel_percent, available, station_id,
               station_slots, model, range_km, detailed, round(ST_X(geom)::numeric, 4)::float AS lon, round(ST_Y(geom)::numeric, 4)::float AS lat
        FROM efa.vehicle_snapshots WHERE source = ${source} ORDER BY vehicle_key`.execute(t.db.kysely);
      expect(rows.rows.map((r) => r['vehicle_key'])).toEqual(['4801', '4802', 'sharing:mrr:4711', 'sharing:stm:E-SM-123', 'sharing:stm:E-SM-456']);
      const row = new Map(rows.rows.map((r) => [r['vehicle_key'], r]));
      expect(row.get('sharing:mrr:4711')).toMatchObject({
        provider_id: '7', area_id: '101', kind: 'BIKE', engine: 'ELECTRIC', location_type: 'FREEFLOATER', charge_percent: 64, fuel_percent: null,
        available: true, station_id: null, model: 'Smartbike 2', range_km: 38, detailed: true, lon: 7.0116, lat: 51.4551,
      });
      expect(row.get('sharing:stm:E-SM-123')).toMatchObject({
        provider_id: '12', area_id: '201', kind: 'CAR', engine: 'ELECTRIC', location_type: 'STATION', charge_percent: 81,
        // Unavailable from 08:30 to 11:00: the snapshot is at 09:00.
        available: false, station_id: 'st-88', model: 'VW ID.3', range_km: 290,
        station_slots: { stNum: '88', oOS: false, carSlots: { totalSlots: 4, emptySlots: 1, freeVehicles: 2 }, carElectricSlots: { totalSlots: 2, emptySlots: 0, freeVehicles: 1 } },
      });
      expect(row.get('sharing:stm:E-SM-456')).toMatchObject({ kind: 'CAR', engine: 'COMBUSTION', fuel_percent: 40, charge_percent: null, range_km: 310.5, available: true });
      // The station alone: its listed vehicles, at their own position or the station's, with its slots.
      expect(row.get('4801')).toMatchObject({
        provider_id: '7', area_id: '101', kind: 'BIKE', location_type: 'STATION', station_id: 'st-90', lon: 7.014, lat: 51.4503,
        station_slots: { stNum: '90', oOS: false, bikeSlots: { totalSlots: 12, emptySlots: 10, freeVehicles: 2 } },
      });
      expect(row.get('4802')).toMatchObject({ charge_percent: 12, station_id: 'st-90', lon: 7.0141, lat: 51.4504, available: null });
    });
  });
});
