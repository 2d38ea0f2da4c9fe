import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointEwkbHex, readWkbPoints } from '../../src/db/ewkb.js';
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

  it('reads the points of the MultiPoint and Point WKB PostGIS writes, in either byte order; refuses other types', async () => {
    const read = (wkb: Uint8Array): number[] => {
      const out: number[] = [];
      readWkbPoints(wkb, (x, y) => out.push(x, y));
      return out;
    };
    const r = await sql<{ multi: Uint8Array; xdr: Uint8Array; one: Uint8Array; line: Uint8Array }>`
      SELECT ST_AsBinary(ST_Collect(ARRAY[ST_MakePoint(9.1815123, 48.7838456), ST_MakePoint(-0.0000001, 0), ST_MakePoint(179.9999999, -89.9999999)])) AS multi,
             ST_AsBinary(ST_Collect(ARRAY[ST_MakePoint(1.5, 2.5), ST_MakePoint(3, 4)]), 'XDR') AS xdr,
             ST_AsBinary(ST_MakePoint(8.4, 49)) AS one,
             ST_AsBinary('LINESTRING(0 0, 1 1)'::geometry) AS line`.execute(t.db.kysely);
    const row = r.rows[0]!;
    expect(read(new Uint8Array(row.multi))).toEqual([9.1815123, 48.7838456, -0.0000001, 0, 179.9999999, -89.9999999]);
    expect(read(new Uint8Array(row.xdr))).toEqual([1.5, 2.5, 3, 4]);
    expect(read(new Uint8Array(row.one))).toEqual([8.4, 49]);
    expect(() => read(new Uint8Array(row.line))).toThrow(/Point or MultiPoint expected, got type 2/);
  });

  it('reads EWKB points laid end to end (string_agg of geom::bytea, SRIDs and all), and refuses Z, M and a cut value', async () => {
    const read = (wkb: Uint8Array): number[] => {
      const out: number[] = [];
      readWkbPoints(wkb, (x, y) => out.push(x, y));
      return out;
    };
    const r = await sql<{ run: Uint8Array; z: Uint8Array }>`
      SELECT string_agg(g::bytea, ''::bytea ORDER BY n) AS run,
             ST_AsEWKB(ST_SetSRID(ST_MakePoint(1, 2, 3), 4326)) AS z
      FROM (VALUES (1, ST_SetSRID(ST_MakePoint(9.1815123, 48.7838456), 4326)), (2, ST_SetSRID(ST_MakePoint(-0.0000001, 0), 4326)),
                   (3, ST_SetSRID(ST_MakePoint(179.9999999, -89.9999999), 4326))) AS v(n, g)`.execute(t.db.kysely);
    const row = r.rows[0]!;
    const run = new Uint8Array(row.run);
    expect(run.byteLength).toBe(3 * 25);
    expect(read(run)).toEqual([9.1815123, 48.7838456, -0.0000001, 0, 179.9999999, -89.9999999]);
    expect(() => read(new Uint8Array(row.z))).toThrow(/2D points expected/);
    expect(() => read(run.subarray(0, 60))).toThrow(/cut short at byte 50/);
  });
});
