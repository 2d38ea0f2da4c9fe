import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { rejectUnrepairableAreas } from '../../src/db/areas.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';

/**
 * GEOS and PROJ failures end in an error through efa-sync's engine (src/db/pglite-errors.ts), on
 * PGlite as on a server: plain PGlite resolved them with no rows and no error.
 */
const BOW_TIE = 'POLYGON((0 0,10 10,0 10,10 0,0 0))';
const OTHER_BOW_TIE = 'POLYGON((5 0,15 10,5 10,15 0,5 0))';
const UNION = `SELECT ST_Union('${BOW_TIE}'::geometry, '${OTHER_BOW_TIE}'::geometry) AS u`;

let t: TestDb;
let db: Db;
beforeAll(async () => {
  t = await openTestDb();
  db = t.db;
}, 120_000);
afterAll(async () => t?.dispose());

const rows = async (text: string): Promise<Record<string, unknown>[]> => {
  let found: Record<string, unknown>[] = [];
  await db.transaction(async ({ kysely }) => {
    const { sql } = await import('kysely');
    found = (await sql.raw<Record<string, unknown>>(text).execute(kysely)).rows;
  });
  return found;
};

describe('PostGIS errors on the embedded engine', () => {
  it('ST_Union of two self-intersecting polygons is an error (SQLSTATE XX000, GEOS named), and the session goes on', async () => {
    const failure = await rows(UNION).then(() => undefined, (e: unknown) => e as { code?: string; message: string });
    expect(failure?.message).toMatch(/TopologyException|Self-intersection|GEOS/);
    if (dbKind() === 'pglite') expect(failure?.code).toBe('XX000');
    expect(await rows('SELECT 41 + 1 AS n')).toEqual([{ n: 42 }]);
  });

  it('through exec too, and a transaction it fails in is rolled back, not committed half', async () => {
    await expect(db.exec(UNION)).rejects.toThrow(/TopologyException|Self-intersection|GEOS/);
    await db.exec('CREATE TEMP TABLE union_probe (n int)');
    await expect(db.exec(`BEGIN; INSERT INTO union_probe VALUES (1); ${UNION}; COMMIT;`)).rejects.toThrow(/GEOS|TopologyException|Self-intersection/);
    expect(await rows('SELECT count(*)::int AS n FROM union_probe')).toEqual([{ n: 0 }]);
  });

  it('a transform to an unknown SRID or an unreadable proj string is an error, never an empty answer', async () => {
    await expect(rows(`SELECT ST_Transform('SRID=4326;POINT(8 48)'::geometry, 999999) AS g`)).rejects.toThrow(/SRID|999999/);
    await expect(rows(`SELECT ST_Transform('SRID=4326;POINT(8 48)'::geometry, '+proj=nonsense') AS g`)).rejects.toThrow(/projection|proj/i);
    await expect(rows(`SELECT ST_Transform('SRID=4326;POINT(8 48)'::geometry, '+proj=utm +zone=999') AS g`)).rejects.toThrow(/zone|proj/i);
    expect(await rows(`SELECT round(ST_X(ST_Transform('SRID=4326;POINT(8 48)'::geometry, 3857))::numeric) AS x`)).toEqual([{ x: '890556' }]);
  });

  it('a bow-tie operating area is repaired into a valid area, a collapsed one rejected: no row goes missing', async () => {
    const area = (key: string, coordinates: number[][][]) => ({ area_key: key, geojson: JSON.stringify({ type: 'Polygon', coordinates }) });
    const bowTie = area('bow', [[[0, 0], [10, 10], [0, 10], [10, 0], [0, 0]]]);
    const line = area('line', [[[0, 0], [10, 10], [5, 5], [0, 0]]]);
    const { ok, rejected } = await rejectUnrepairableAreas(db.kysely, [bowTie, line] as never);
    expect(ok.map((a) => a.area_key)).toEqual(['bow']);
    expect(rejected.map((r) => [r.area.area_key, /unrepairable polygon/.test(r.reason)])).toEqual([['line', true]]);
    const repaired = await rows(`SELECT ST_IsValid(g) AS valid, ST_Area(g) AS area FROM (SELECT ST_MakeValid('${BOW_TIE}'::geometry) AS g) s`);
    expect(repaired).toEqual([{ valid: true, area: 50 }]);
  });

  it('a self-intersecting job region selects the points inside it (ST_Intersects answers, it does not drop rows)', async () => {
    // The scope functions (sql/functions/live_in_scope.sql, gone_*.sql) test pins against the region this way.
    const inside = await rows(`
      SELECT count(*)::int AS n FROM (VALUES ('POINT(5 9)'), ('POINT(5 1)'), ('POINT(2 5)'), ('POINT(50 50)')) AS p(wkt)
      WHERE ST_GeomFromText(wkt) && '${BOW_TIE}'::geometry AND ST_Intersects('${BOW_TIE}'::geometry, ST_GeomFromText(wkt))`);
    expect(inside).toEqual([{ n: 2 }]);
    await expect(rows(`SELECT ST_Area(ST_Intersection('${BOW_TIE}'::geometry, '${OTHER_BOW_TIE}'::geometry)) AS a`)).rejects.toThrow(/GEOS|TopologyException|Self-intersection/);
  });
});
