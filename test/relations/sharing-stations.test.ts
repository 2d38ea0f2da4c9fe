/**
 * efa.sharing_stations and efa.notice_stops end to end: nights of a job against the simulator
 * (rapidJSON), compared with its truth. Stations come with the CoordInfo answers the night asks
 * anyway; an unchanged night writes nothing although the vehicles standing at them differ; a
 * removed station is marked gone only where the tile that owns its place was complete; as-of gives
 * the earlier state; notice_stops names the stops each notice affects.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { generateWorld, startSimulator, type SharingStation, type Simulator } from '../../src/sim/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.05, 48.7, 9.3, 48.85] as const;

interface StoredStation {
  provider_id: string;
  station_id: string;
  name: string;
  lon: number;
  lat: number;
  slots: Record<string, number>;
  out_of_service: boolean | null;
  deleted: boolean;
  changed_run: string;
}

const expected = (s: SharingStation) => ({
  provider_id: s.providerId, station_id: s.id, name: s.name, lon: s.lon, lat: s.lat, slots: { ...s.capacity }, out_of_service: s.outOfService,
});
const byKey = (a: { provider_id: string; station_id: string }, b: { provider_id: string; station_id: string }): number =>
  `${a.provider_id}/${a.station_id}` < `${b.provider_id}/${b.station_id}` ? -1 : 1;

describe('efa.sharing_stations through the simulator', () => {
  let sim: Simulator;
  let t: TestDb;
  const nights: RunSummary[] = [];
  const night = async (clock: string): Promise<RunSummary> => {
    // Each night at another hour: the vehicles standing at the stations and their empty slots differ.
    sim.setClock(new Date(clock));
    const job = inlineJob({
      name: 'stations',
      baseUrl: sim.url,
      dialect: 'rapidjson',
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 500, concurrency: 4 },
      sweeps: { coord: { types: ['ANY'], maxPerRequest: 200 }, addInfo: { publicationStatus: 'current' } },
    });
    const summary = await runJob({ loaded: job, db: t.db, log: silent, today });
    nights.push(summary);
    return summary;
  };
  const stored = async (): Promise<StoredStation[]> => {
    const r = await sql<StoredStation>`
      SELECT provider_id, station_id, name, ST_X(geom) AS lon, ST_Y(geom) AS lat, slots, out_of_service,
             deleted_at IS NOT NULL AS deleted, changed_run::text AS changed_run
      FROM efa.sharing_stations ORDER BY provider_id, station_id`.execute(t.db.kysely);
    return r.rows;
  };
  const live = async () => (await stored()).filter((s) => !s.deleted).map(({ deleted: _d, changed_run: _c, ...s }) => s);
  const changesOf = async (runId: string) =>
    (await sql<{ key: string; op: string }>`SELECT key, op FROM efa.changes WHERE run_id = ${runId}::bigint AND relation = 'sharing_stations' ORDER BY key`.execute(t.db.kysely)).rows;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, dialect: 'rapidjson', world: generateWorld({ seed: 5, size: 1500, today, stations: 14 }), today });
    t = await openTestDb();
    await night('2026-11-22T02:00:00Z');
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('stores every station of the region, with its slots per kind, at no extra request', async () => {
    const truth = sim.world.truth([...region], { date: today }).stations;
    expect(truth.length).toBe(14);
    expect(nights[0]?.status).toBe('succeeded');
    expect(await live()).toEqual(truth.map(expected).sort(byKey));
    // The night's CoordInfo requests are its box sweep's, of type ANY: no station detail, no vehicle search.
    const coord = sim.requestLog.filter((r) => r.path.endsWith('XML_COORD_REQUEST'));
    expect(coord.length).toBeGreaterThan(0);
    for (const r of coord) expect(new URLSearchParams(r.query).get('type_0')).toBe('ANY');
    expect(coord.filter((r) => /coordReqType|vehSF|vehAtStation/.test(r.query))).toEqual([]);
  });

  it('a second night with other vehicles at the stations writes no station row', async () => {
    const before = await stored();
    const second = await night('2026-11-23T17:30:00Z');
    expect(second.status).toBe('succeeded');
    expect(await stored()).toEqual(before);
    expect(await changesOf(second.runId)).toEqual([]);
  });

  it('marks a removed station gone where its tile was complete, keeps it where a broken station made the tile incomplete; as-of gives the earlier state', async () => {
    const w = sim.world;
    const [shielded, changed, ...rest] = w.stations().filter((s) => !s.outOfService);
    // The station removed in a complete tile lies far from the one whose tile is made incomplete.
    const distance = (s: SharingStation) => Math.hypot(s.lon - (shielded?.lon ?? 0), s.lat - (shielded?.lat ?? 0));
    const gone = rest.sort((a, b) => distance(b) - distance(a))[0];
    if (!gone || !shielded || !changed) throw new Error('the world has too few stations');
    w.removeStation(gone.providerId, gone.id);
    w.removeStation(shielded.providerId, shielded.id);
    // At the removed station's very place, a new station the tile that owns it cannot read.
    const broken: SharingStation = { ...shielded, id: 'broken-1', capacity: { bike: -3 } };
    w.addStation(broken);
    w.changeStation(changed.providerId, changed.id, { capacity: { ...changed.capacity, bike: (changed.capacity['bike'] ?? 0) + 5 } });
    const third = await night('2026-11-24T03:00:00Z');
    expect(third.status).toBe('partial');

    const keyOf = (s: SharingStation) => `${s.providerId}/${s.id}`;
    expect(await changesOf(third.runId)).toEqual(
      [{ key: keyOf(changed), op: 'update' }, { key: keyOf(gone), op: 'delete' }].sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
    const rows = await stored();
    const row = (s: SharingStation) => rows.find((r) => r.provider_id === s.providerId && r.station_id === s.id);
    expect(row(gone)?.deleted).toBe(true);
    expect(row(shielded)?.deleted).toBe(false);
    // The station that could not be read is not stored: its reject is in efa.rejects with the reason.
    expect(row(broken)).toBeUndefined();
    const rejects = await sql<{ reason: string }>`SELECT reason FROM efa.rejects WHERE run_id = ${third.runId}::bigint`.execute(t.db.kysely);
    expect(rejects.rows.map((r) => r.reason)).toEqual([expect.stringContaining('station.bikeSlots.totalSlots: negative count -3')]);
    expect(row(changed)).toMatchObject({ slots: { ...changed.capacity, bike: (changed.capacity['bike'] ?? 0) + 5 }, changed_run: third.runId });

    const at = await sql<{ at: string }>`SELECT finished_at::text AS at FROM efa.runs WHERE run_id = ${nights[1]!.runId}::bigint`.execute(t.db.kysely);
    const asOf = await sql<{ station_key: string; slots: Record<string, number> }>`
      SELECT station_key, slots FROM efa.sharing_stations_as_of(${at.rows[0]?.at}::timestamptz) ORDER BY station_key`.execute(t.db.kysely);
    const initial = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.sharing_stations`.execute(t.db.kysely)).rows[0]?.n;
    expect(asOf.rows).toHaveLength(initial ?? -1);
    expect(asOf.rows.find((r) => r.station_key === keyOf(changed))?.slots).toEqual(changed.capacity);
    expect(asOf.rows.some((r) => r.station_key === keyOf(gone))).toBe(true);
    const now = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.sharing_stations_as_of(now())`.execute(t.db.kysely);
    expect(now.rows[0]?.n).toBe((initial ?? 0) - 1);
  });

  it('efa.notice_stops names the stops of each current notice, matched to the stored stops', async () => {
    const notices = sim.world.currentNotices(today).filter((n) => n.stops.length > 0);
    expect(notices.length).toBeGreaterThan(0);
    const want = notices.flatMap((n) => n.stops.map((s) => ({ notice_id: n.id, stop_ref: s, stop_id: s }))).sort((a, b) => (`${a.notice_id} ${a.stop_ref}` < `${b.notice_id} ${b.stop_ref}` ? -1 : 1));
    const got = await sql<{ notice_id: string; stop_ref: string; stop_id: string | null }>`
      SELECT notice_id, stop_ref, stop_id FROM efa.notice_stops`.execute(t.db.kysely);
    expect(got.rows.sort((a, b) => (`${a.notice_id} ${a.stop_ref}` < `${b.notice_id} ${b.stop_ref}` ? -1 : 1))).toEqual(want);
  });
});
