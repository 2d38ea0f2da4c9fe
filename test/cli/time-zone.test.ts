import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { builtCli, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { cliRunDate } from '../helpers/clock.js';

/**
 * Times an upstream writes without an offset are the deployment's wall clock (issue 30, point 6),
 * through the BUILT CLI: parking `measuredAt` as the vendor schema gives it, in the snapshot table and
 * in efa.current_parking, read in the zone of the region (Stuttgart: Europe/Berlin) or the job's
 * `timeZone`, DST edges included; legacy AddInfo validities (itdDate + itdTime) as instants; the
 * zone recorded with the run. Before, every zone-less time was NULL or dropped.
 */

const region = [9.15, 48.76, 9.19, 48.79] as const;
const centre = { lon: 9.17, lat: 48.775 };

/** Wall-clock texts as a vendor writes them, and what they are in Berlin and in New York. */
const readings = [
  { id: 'winter', measuredAt: '2026-11-24T09:58:00', berlin: '2026-11-24T08:58:00.000Z', newYork: '2026-11-24T14:58:00.000Z' },
  { id: 'summer', measuredAt: '2026-07-01T12:00:00', berlin: '2026-07-01T10:00:00.000Z', newYork: '2026-07-01T16:00:00.000Z' },
  // Berlin's spring-forward gap (02:00 -> 03:00): the offset before the change, +01:00.
  { id: 'berlin-gap', measuredAt: '2026-03-29T02:30:00', berlin: '2026-03-29T01:30:00.000Z', newYork: '2026-03-29T06:30:00.000Z' },
  // Berlin's repeated hour (03:00 -> 02:00): the later instant, +01:00.
  { id: 'berlin-twice', measuredAt: '2026-10-25T02:30:00', berlin: '2026-10-25T01:30:00.000Z', newYork: '2026-10-25T06:30:00.000Z' },
  // New York's gap (2026-03-08 02:00 -> 03:00): -05:00; its repeated hour (2026-11-01 01:00-02:00): -05:00.
  { id: 'ny-gap', measuredAt: '2026-03-08T02:30:00', berlin: '2026-03-08T01:30:00.000Z', newYork: '2026-03-08T07:30:00.000Z' },
  { id: 'ny-twice', measuredAt: '2026-11-01T01:30:00', berlin: '2026-11-01T00:30:00.000Z', newYork: '2026-11-01T06:30:00.000Z' },
  // With an offset: as written, whatever the zone.
  { id: 'utc', measuredAt: '2026-11-22T08:55:00Z', berlin: '2026-11-22T08:55:00.000Z', newYork: '2026-11-22T08:55:00.000Z' },
] as const;

const parkingPins = readings.map((r, i) => ({
  type: 'PARKING', id: `lot-${r.id}`, name: `Lot ${r.id}`, coord: { lon: centre.lon + i * 0.001, lat: centre.lat }, motTypes: '',
  capacity: 100, parkingRealtimeInfo: { freePlaces: 10 + i, dataSource: 'REALTIME', measuredAt: r.measuredAt },
}));

/**
 * The instant of wall-clock `hhmm` on `day` in `zone`, ISO 8601 in UTC, from the platform's own zone data
 * (Intl), so the expectation holds in any year. No zone here changes its offset within two hours of
 * midnight, so the offset at the same wall clock read as UTC is the one in force.
 */
function localInstant(day: string, hhmm: string, zone: string): string {
  const asUtc = Date.parse(`${day}T${hhmm}:00Z`);
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(asUtc).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!m) throw new Error(`unexpected zone name ${name}`);
  const offsetMin = m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  return new Date(asUtc - offsetMin * 60_000).toISOString();
}

/** `<x>:<y>:WGS84[dd.ddddd]` corners of a box parameter pair, as [minLon, minLat, maxLon, maxLat]. */
function boxOf(params: URLSearchParams, lu: string, rl: string): [number, number, number, number] | undefined {
  const corner = (text: string | null) => /^(-?[\d.]+):(-?[\d.]+):/.exec(text ?? '')?.slice(1, 3).map(Number);
  const a = corner(params.get(lu));
  const b = corner(params.get(rl));
  return a && b ? [a[0]!, b[1]!, b[0]!, a[1]!] : undefined;
}

/** A CoordInfo-only upstream in the json dialect: the parking lots inside a parking box, nothing else. */
async function startParkingUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!url.pathname.endsWith('/XML_COORD_REQUEST')) return void res.writeHead(404).end('CoordInfo only');
    const box = boxOf(url.searchParams, 'parkingBBLU', 'parkingBBRL');
    const pins = box ? parkingPins.filter((p) => p.coord.lon >= box[0] && p.coord.lon <= box[2] && p.coord.lat >= box[1] && p.coord.lat <= box[3]) : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pins }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/efa`, server };
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

describe.skipIf(!existsSync(builtCli))('zone-less times are read in the deployment\'s zone (built CLI)', () => {
  let upstream: { url: string; server: Server };
  let sim: Simulator;
  let dir: string;
  const dbs: TestDbUrl[] = [];
  const job = async (name: string, body: Record<string, unknown>): Promise<string> => {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify({ name, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 200, concurrency: 2 }, ...body }));
    return file;
  };
  const freshDb = async (): Promise<string> => {
    const db = await createTestDbUrl();
    dbs.push(db);
    return db.url;
  };

  beforeAll(async () => {
    upstream = await startParkingUpstream();
    sim = await startSimulator({ port: 0, seed: 5, size: 400, dialect: 'legacy', today: cliRunDate() });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-tz-'));
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => (upstream ? upstream.server.close(() => resolve()) : resolve()));
    await sim?.stop();
    for (const db of dbs) await db.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('parking measuredAt without an offset: the region\'s zone (Europe/Berlin) in the snapshot and in current_parking; the zone in efa.runs', async () => {
    const db = await freshDb();
    const snapshot = await job('lots-now', { baseUrl: upstream.url, sweeps: { parking: { realtime: true, maxPerRequest: 50 } } });
    const nightly = await job('lots', {
      baseUrl: upstream.url, sweeps: { coord: { types: ['STOP'], maxPerRequest: 50, parking: { realtime: true } } },
    });
    for (const file of [snapshot, nightly]) {
      const r = await runBuiltCli(['run', file, '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
    }
    const d = await openDb(db);
    try {
      const snap = await sql<{ parking_key: string; measured_at: Date | null }>`
        SELECT parking_key, measured_at FROM efa.parking_snapshots ORDER BY parking_key`.execute(d.kysely);
      const current = await sql<{ id: string; measured_at: Date | null; free_places_at: Date | null }>`
        SELECT id, measured_at, free_places_at FROM efa.current_parking ORDER BY id`.execute(d.kysely);
      const runs = await sql<{ job_name: string; time_zone: string | null }>`SELECT job_name, time_zone FROM efa.runs ORDER BY run_id`.execute(d.kysely);
      const expected = readings.map((r) => [`lot-${r.id}`, r.berlin]).sort();
      expect(snap.rows.map((row) => [row.parking_key.slice(row.parking_key.indexOf('lot-')), iso(row.measured_at)]).sort()).toEqual(expected);
      expect(current.rows.map((row) => [row.id, iso(row.measured_at)])).toEqual(expected);
      // A reading's time is when it was measured, not when the run stored it.
      expect(current.rows.map((row) => [row.id, iso(row.free_places_at)])).toEqual(expected);
      expect(runs.rows).toEqual([{ job_name: 'lots-now', time_zone: 'Europe/Berlin' }, { job_name: 'lots', time_zone: 'Europe/Berlin' }]);
    } finally {
      await d.close();
    }
  }, 180_000);

  it('the job\'s timeZone wins over the region\'s, DST gaps and repeated hours included', async () => {
    const db = await freshDb();
    const file = await job('lots-ny', { baseUrl: upstream.url, timeZone: 'America/New_York', sweeps: { parking: { realtime: true, maxPerRequest: 50 } } });
    const r = await runBuiltCli(['run', file, '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const d = await openDb(db);
    try {
      const snap = await sql<{ parking_key: string; measured_at: Date | null }>`SELECT parking_key, measured_at FROM efa.parking_snapshots`.execute(d.kysely);
      const got = Object.fromEntries(snap.rows.map((row) => [row.parking_key.slice(row.parking_key.indexOf('lot-')), iso(row.measured_at)]));
      expect(got).toEqual(Object.fromEntries(readings.map((x) => [`lot-${x.id}`, x.newYork])));
      const runs = await sql<{ time_zone: string }>`SELECT time_zone FROM efa.runs`.execute(d.kysely);
      expect(runs.rows).toEqual([{ time_zone: 'America/New_York' }]);
    } finally {
      await d.close();
    }
  }, 180_000);

  it('a timeZone that is not an IANA name is bad configuration naming the field (exit 2)', async () => {
    const file = await job('bad-zone', { baseUrl: upstream.url, timeZone: '+01:00', sweeps: { parking: { realtime: true, maxPerRequest: 50 } } });
    const r = await runBuiltCli(['run', file, '--db', 'pglite:memory']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/timeZone: an IANA time zone name/);
  }, 60_000);

  it('legacy AddInfo validities (itdDate + itdTime) become instants in the zone: region\'s, or the job\'s', async () => {
    const db = await freshDb();
    const berlin = await job('notices', { baseUrl: sim.url, dialect: 'legacy', sweeps: { addInfo: {} } });
    const tokyo = await job('notices-tokyo', { baseUrl: sim.url, dialect: 'legacy', source: 'tokyo', timeZone: 'Asia/Tokyo', sweeps: { addInfo: {} } });
    for (const file of [berlin, tokyo]) {
      const r = await runBuiltCli(['run', file, '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
    }
    const d = await openDb(db);
    try {
      // The simulator writes each period from 00:00 of its first day to 23:59 of its last (legacy itdTime).
      const rows = await sql<{ source: string; valid_from: string; valid_to: string; from_at: string | null; to_at: string | null }>`
        SELECT source, valid_from::text AS valid_from, valid_to::text AS valid_to, attrs ->> 'validFromAt' AS from_at, attrs ->> 'validToAt' AS to_at
        FROM efa.notices WHERE valid_from IS NOT NULL AND valid_to IS NOT NULL ORDER BY source, notice_id`.execute(d.kysely);
      expect(rows.rows.length).toBeGreaterThan(0);
      const zoneOf: Record<string, string> = { notices: 'Europe/Berlin', tokyo: 'Asia/Tokyo' };
      for (const n of rows.rows) {
        const zone = zoneOf[n.source]!;
        expect([n.source, n.from_at]).toEqual([n.source, localInstant(n.valid_from, '00:00', zone)]);
        expect([n.source, n.to_at]).toEqual([n.source, localInstant(n.valid_to, '23:59', zone)]);
      }
      expect(rows.rows.filter((n) => n.source === 'tokyo').length).toBeGreaterThan(0);
    } finally {
      await d.close();
    }
  }, 180_000);
});
