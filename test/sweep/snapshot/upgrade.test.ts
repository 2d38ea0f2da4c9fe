import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDb, readMigrations } from '../../../src/db/index.js';
import { sqlDir } from '../../../src/db/migrate.js';
import { builtCli, runBuiltCli, type BuiltCliResult } from '../../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../../helpers/db.js';
import { gridStops, pinsBody, startHostileUpstream, type CoordBehaviour, type HostileUpstream, type WirePin } from '../../helpers/hostile-upstream.js';

/**
 * A warehouse made before schema version 19 (vehicles keyed by their id alone, impossible parking
 * figures stored as readings) is upgraded by the next snapshot run of the built CLI: its rows keep
 * working in the views under the new key (provider and id), and the figures outside [0, capacity]
 * it holds are left out of the occupancy views.
 */
const REGION = [9.1, 48.7, 9.2, 48.8] as const;
const JOB = 'upgraded-snap';
const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const oldAt = `${day}T08:00:00Z`;
const newAt = `${day}T10:00:00Z`;

const spots = gridStops(6, REGION);
/** Now: providers p0 and p1 each with vehicles 1, 2, 3. */
const vehicles: WirePin[] = spots.map((s, i) => ({
  type: 'SHARING', id: String((i % 3) + 1), name: `bike ${i}`, coord: { lat: s.lat, lon: s.lon }, vehicleType: 'BIKE', providerId: i < 3 ? 'p0' : 'p1', available: true,
}));
const world: CoordBehaviour = (q) => pinsBody(vehicles.filter((p) => {
  const c = p.coord as { lat: number; lon: number };
  return c.lon >= q.bbox[0] && c.lon <= q.bbox[2] && c.lat >= q.bbox[1] && c.lat <= q.bbox[3];
}));

describe.skipIf(!existsSync(builtCli))('a snapshot warehouse made before schema version 19, upgraded by the next run (built CLI)', () => {
  let upstream: HostileUpstream;
  let dir: string;
  let db: TestDbUrl;
  let run: BuiltCliResult;

  beforeAll(async () => {
    upstream = await startHostileUpstream(spots, world);
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-snap-upgrade-'));
    db = await createTestDbUrl({ migrated: false });
    // The schema up to version 18, and a vehicle and a parking snapshot as that version stored them.
    const old = join(dir, 'sql');
    await cp(sqlDir, old, { recursive: true, filter: (src) => !/\/0(19|[2-9]\d)_[^/]*\.sql$/.test(src) && !/\/sql\/(views|functions)/.test(src) });
    expect((await readMigrations(old)).map((m) => m.version).at(-1)).toBe(18);
    const d = await openDb(db.url);
    try {
      await migrate(d, old);
      for (const kind of ['vehicles', 'parking'] as const) {
        // A run row as schema 18 has it (today's createRun writes columns of later versions).
        const created = await sql<{ run_id: string }>`
          INSERT INTO efa.runs (job_name, job_hash, source, status, finished_at) VALUES (${JOB}, 'h', ${JOB}, 'succeeded', now())
          RETURNING run_id::text AS run_id`.execute(d.kysely);
        const r = { runId: created.rows[0]!.run_id };
        // The day's partitions where schema 18's efa.ensure_snapshot_partitions put them (today's is a definition, for today's schema).
        const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
        for (const parent of ['snapshot_tiles', 'vehicle_snapshots', 'parking_snapshots']) {
          await sql.raw(`CREATE TABLE IF NOT EXISTS efa.${parent}_${day.replaceAll('-', '')} PARTITION OF efa.${parent} FOR VALUES FROM ('${day}T00:00:00Z') TO ('${next}T00:00:00Z')`).execute(d.kysely);
        }
        await sql`INSERT INTO efa.snapshots (run_id, kind, source, job_name, taken_at, status, tiles, tiles_failed, tiles_capped, objects, rows, requests)
                  VALUES (${r.runId}::bigint, ${kind}, ${JOB}, ${JOB}, ${oldAt}, 'complete', 1, 0, 0, 3, 3, 1)`.execute(d.kysely);
        if (kind === 'vehicles') {
          await sql`INSERT INTO efa.vehicle_snapshots (taken_at, run_id, source, vehicle_key, provider_id, kind, available, geom)
                    SELECT ${oldAt}::timestamptz, ${r.runId}::bigint, ${JOB}, k, p, 'BIKE', true, ST_SetSRID(ST_MakePoint(9.15, 48.75), 4326)
                    FROM (VALUES ('1', 'p0'), ('2', 'p0'), ('gone', NULL)) v(k, p)`.execute(d.kysely);
        } else {
          await sql`INSERT INTO efa.parking_snapshots (taken_at, run_id, source, parking_key, capacity, free, occupied, data_source, geom)
                    SELECT ${oldAt}::timestamptz, ${r.runId}::bigint, ${JOB}, k, c, f, NULL, 'REALTIME', ST_SetSRID(ST_MakePoint(9.15, 48.75), 4326)
                    FROM (VALUES ('honest', 10, 5), ('negative', 10, -7), ('huge', 10, 1000000000)) v(k, c, f)`.execute(d.kysely);
        }
      }
    } finally {
      await d.close();
    }
    const job = join(dir, 'job.json');
    await writeFile(job, JSON.stringify({
      name: JOB, baseUrl: upstream.url, region: { bbox: [...REGION] },
      rateLimit: { requestsPerSecond: 200, concurrency: 2, retries: 0, timeoutMs: 5_000 }, sweeps: { vehicles: { maxPerRequest: 100 } },
    }));
    run = await runBuiltCli(['run', job, '--db', db.url, '--json', '--log-format', 'json', '--now', newAt], {}, 300_000);
  }, 400_000);
  afterAll(async () => {
    await upstream?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('migrates and stores the new snapshot beside the old rows, one vehicle per provider and id', async () => {
    expect(run.code, run.stderr).toBe(0);
    const d = await openDb(db.url);
    try {
      const latest = await sql<{ provider_id: string | null; vehicle_key: string; seen_at: Date; in_latest_snapshot: boolean }>`
        SELECT provider_id, vehicle_key, seen_at, in_latest_snapshot FROM efa.latest_vehicles WHERE source = ${JOB}
        ORDER BY provider_id NULLS FIRST, vehicle_key`.execute(d.kysely);
      expect(latest.rows.map((r) => [r.provider_id, r.vehicle_key, new Date(r.seen_at).toISOString(), r.in_latest_snapshot])).toEqual([
        // The old row of a vehicle no answer names a provider for, seen before only.
        [null, 'gone', new Date(oldAt).toISOString(), false],
        ...['p0', 'p1'].flatMap((p) => ['1', '2', '3'].map((k) => [p, k, new Date(newAt).toISOString(), true])),
      ]);
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.vehicle_snapshots WHERE source = ${JOB}`.execute(d.kysely);
      expect(rows.rows[0]?.n).toBe(3 + 6);
      const key = await sql<{ def: string }>`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'vehicle_snapshots_vehicle_key'`.execute(d.kysely);
      expect(key.rows[0]?.def).toBe('UNIQUE NULLS NOT DISTINCT (taken_at, run_id, provider_id, vehicle_key)');
    } finally {
      await d.close();
    }
  });

  it('leaves the impossible figures stored before out of the occupancy views', async () => {
    const d = await openDb(db.url);
    try {
      const hourly = await sql<{ parking_key: string; readings: number; free_avg: string | null; occupancy_avg: string | null; readings_impossible: number }>`
        SELECT parking_key, readings, free_avg::text, occupancy_avg::text, readings_impossible FROM efa.parking_occupancy_hourly
        WHERE job_name = ${JOB} ORDER BY parking_key`.execute(d.kysely);
      expect(hourly.rows).toEqual([
        { parking_key: 'honest', readings: 1, free_avg: '5.00', occupancy_avg: '0.5000', readings_impossible: 0 },
        { parking_key: 'huge', readings: 0, free_avg: null, occupancy_avg: null, readings_impossible: 1 },
        { parking_key: 'negative', readings: 0, free_avg: null, occupancy_avg: null, readings_impossible: 1 },
      ]);
      const week = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.parking_occupancy_weekday_hour WHERE job_name = ${JOB} AND (free_min < 0 OR occupancy_avg NOT BETWEEN 0 AND 1)`.execute(d.kysely);
      expect(week.rows[0]?.n).toBe(0);
    } finally {
      await d.close();
    }
  });
});
