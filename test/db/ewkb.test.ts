import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointEwkbHex } from '../../src/db/ewkb.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

describe('hex EWKB points', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(async () => t?.dispose());

  it('is what PostGIS writes for the same point, and reads back as the same doubles', async () => {
    const points: [number, number][] = [[9.1815123, 48.7838456], [-0.0000001, 0], [179.9999999, -89.9999999], [8.4, 49.0]];
    for (const [lon, lat] of points) {
      const r = await sql<{ hex: string; x: number; y: number; srid: number }>`
        SELECT encode(ST_AsEWKB(ST_SetSRID(ST_MakePoint(${lon}::float8, ${lat}::float8), 4326)), 'hex') AS hex,
               ST_X(${pointEwkbHex(lon, lat)}::geometry) AS x, ST_Y(${pointEwkbHex(lon, lat)}::geometry) AS y,
               ST_SRID(${pointEwkbHex(lon, lat)}::geometry) AS srid`.execute(t.db.kysely);
      expect(pointEwkbHex(lon, lat)).toBe(r.rows[0]?.hex);
      expect([r.rows[0]?.x, r.rows[0]?.y, r.rows[0]?.srid]).toEqual([lon, lat, 4326]);
    }
  });
});
