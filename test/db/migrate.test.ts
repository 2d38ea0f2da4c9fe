import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

describe('migrations and PostGIS smoke test', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
  });
  afterAll(async () => t?.dispose());

  it('applies every sql/ migration once and records it; a second call is a no-op', async () => {
    const files = await readMigrations();
    const first = await migrate(t.db);
    expect(first.applied).toEqual(files.map((f) => f.version));
    expect(first.current).toBe(files.at(-1)?.version);
    const second = await migrate(t.db);
    expect(second.applied).toEqual([]);
    const rows = await t.db.kysely.selectFrom('efa.schema_migrations').select(['version', 'checksum']).orderBy('version').execute();
    expect(rows.map((r) => r.checksum)).toEqual(files.map((f) => f.checksum));
  });

  it('stores and queries a geometry in lon/lat order with a GiST index', async () => {
    const run = await t.db.kysely
      .insertInto('efa.runs')
      .values({ job_name: 'smoke', source: 'smoke', job_hash: 'x', status: 'running', finished_at: null, heartbeat_at: null, error: null, resumed_from: null })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    await sql`INSERT INTO efa.pins (source, pin_key, type, id, name, geom, content_hash, first_run, changed_run)
      VALUES ('smoke', 'STOP:de:08111:6115', 'STOP', 'de:08111:6115', 'Stuttgart Hbf', ST_SetSRID(ST_MakePoint(9.1829, 48.7840), 4326), 'h', ${run.run_id}, ${run.run_id})`.execute(t.db.kysely);
    const found = await sql<{ stop_id: string; lon: number; lat: number; valid: boolean }>`
      SELECT stop_id, ST_X(geom) AS lon, ST_Y(geom) AS lat, ST_IsValid(geom) AS valid FROM efa.stops
      WHERE ST_Intersects(geom, ST_MakeEnvelope(9.1, 48.7, 9.3, 48.8, 4326))`.execute(t.db.kysely);
    expect(found.rows).toEqual([{ stop_id: 'de:08111:6115', lon: 9.1829, lat: 48.784, valid: true }]);
    const gist = await sql<{ indexname: string }>`
      SELECT indexname FROM pg_indexes WHERE schemaname = 'efa' AND indexdef ILIKE '%USING gist%' ORDER BY indexname`.execute(t.db.kysely);
    // Every geometry column of every table has one (views built later add their own).
    expect(gist.rows.map((r) => r.indexname)).toEqual(expect.arrayContaining(['operating_areas_geom_gix', 'pins_geom_gix', 'run_tiles_bbox_gix']));
  });

  it('rejects a point whose coordinates are not lon/lat', async () => {
    await expect(
      sql`INSERT INTO efa.pins (source, pin_key, type, name, geom, content_hash, first_run, changed_run)
        VALUES ('smoke', 'bad', 'STOP', 'swapped grid', ST_SetSRID(ST_MakePoint(4475708, 812930), 4326), 'h', 1, 1)`.execute(t.db.kysely),
    ).rejects.toThrow(/pins_lonlat_chk/);
  });
});
