import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDb } from '../../src/cli/database.js';
import { migrate, openDb } from '../../src/db/index.js';
import { createTestDbUrl, dbKind, type TestDbUrl } from '../helpers/db.js';

/**
 * Commands that read no geometry (`runs`, `doctor`) open an embedded database without PostGIS, the
 * larger part of an open's time and memory; a pending migration still gets PostGIS to run under.
 */
describe.runIf(dbKind() === 'pglite')('an embedded open without PostGIS', () => {
  let created: TestDbUrl;
  beforeAll(async () => {
    created = await createTestDbUrl({ migrated: false });
  });
  afterAll(async () => created.drop());

  const postgisLoaded = async (db: Awaited<ReturnType<typeof openDb>>): Promise<boolean> =>
    sql`SELECT postgis_lib_version()`.execute(db.kysely).then(() => true, () => false);

  it('reopens with PostGIS when the schema is not there yet, and migrates', async () => {
    const db = await openMigratedDb({ db: created.url }, { geometry: false });
    try {
      expect(await postgisLoaded(db)).toBe(true);
      const runs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.runs`.execute(db.kysely);
      expect(runs.rows[0]?.n).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('opens without PostGIS once every migration is applied, and still reads efa.runs and the pins count', async () => {
    const full = await openDb(created.url);
    await migrate(full);
    await full.close();
    const db = await openMigratedDb({ db: created.url }, { geometry: false });
    try {
      expect(await postgisLoaded(db)).toBe(false);
      const pins = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins`.execute(db.kysely);
      expect(pins.rows[0]?.n).toBe(0);
    } finally {
      await db.close();
    }
  });
});
