import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MigrationChecksumError, readMigrations } from '../../src/db/index.js';
import { LEGACY_CHECKSUMS } from '../../src/db/legacy-checksums.js';
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

  it('compresses the ledger key arrays with lz4 where the server offers it (031), and leaves pglz where it does not (PGlite)', async () => {
    const offered = await sql<{ lz4: boolean }>`
      SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`.execute(t.db.kysely);
    const columns = await sql<{ compression: string }>`
      SELECT attcompression::text AS compression FROM pg_attribute
      WHERE attrelid IN ('efa.run_seen_sets'::regclass, 'efa.change_sets'::regclass) AND attname = 'keys'`.execute(t.db.kysely);
    expect(columns.rows.map((r) => r.compression)).toEqual(offered.rows[0]?.lz4 === true ? ['l', 'l'] : ['', '']);
  });

  it('accepts a migration applied with its released bytes (before its views and functions moved to definitions), and no other change', async () => {
    const [version, [released]] = Object.entries(LEGACY_CHECKSUMS)[0] as [string, readonly string[]];
    await sql`UPDATE efa.schema_migrations SET checksum = ${released} WHERE version = ${Number(version)}`.execute(t.db.kysely);
    expect((await migrate(t.db)).applied).toEqual([]);
    await sql`UPDATE efa.schema_migrations SET checksum = ${'0'.repeat(64)} WHERE version = ${Number(version)}`.execute(t.db.kysely);
    await expect(migrate(t.db)).rejects.toThrow(MigrationChecksumError);
    const file = (await readMigrations()).find((m) => m.version === Number(version));
    await sql`UPDATE efa.schema_migrations SET checksum = ${file?.checksum ?? ''} WHERE version = ${Number(version)}`.execute(t.db.kysely);
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
