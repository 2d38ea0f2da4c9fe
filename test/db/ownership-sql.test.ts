import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { ownsPoint, type BBox, type Tile } from '../../src/tiling/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/**
 * Tile ownership is defined once in SQL (efa.tile_owns, sql/004) for deletion and mirrored in
 * TypeScript (tiling/ownership.ts) for storage: the two must agree on every edge and corner, or a
 * pin on a shared edge could be stored by one tile and deleted by its neighbour.
 */
describe('tile ownership: TypeScript and SQL agree', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
  });
  afterAll(async () => t?.dispose());

  it('on every edge, corner and interior point of a partition, and each point has exactly one owner', async () => {
    const region: BBox = [9.1, 48.7, 9.3, 48.9];
    const xs = [9.1, 9.15, 9.2, 9.3];
    const ys = [48.7, 48.8, 48.85, 48.9];
    const tiles: Tile[] = [];
    for (let i = 0; i < xs.length - 1; i++) {
      for (let j = 0; j < ys.length - 1; j++) {
        const bbox: BBox = [xs[i]!, ys[j]!, xs[i + 1]!, ys[j + 1]!];
        tiles.push({ id: `t${i}${j}`, bbox, depth: 0 });
      }
    }
    // Every grid line crossing, the middles of every edge, interior points.
    const coords = (v: readonly number[]) => [...v, ...v.slice(1).map((x, k) => (x + v[k]!) / 2)];
    const points = coords(xs).flatMap((lon) => coords(ys).map((lat) => ({ lon, lat })));
    const rows = await sql<{ t: number; p: number; owns: boolean }>`
      SELECT t.i AS t, p.j AS p,
             efa.tile_owns(ST_MakeEnvelope(t.x0, t.y0, t.x1, t.y1, 4326), ST_SetSRID(ST_MakePoint(p.lon, p.lat), 4326), ${region[2]}::float8, ${region[3]}::float8) AS owns
      FROM unnest(${tiles.map((x) => x.bbox[0])}::float8[], ${tiles.map((x) => x.bbox[1])}::float8[],
                  ${tiles.map((x) => x.bbox[2])}::float8[], ${tiles.map((x) => x.bbox[3])}::float8[]) WITH ORDINALITY AS t(x0, y0, x1, y1, i)
      CROSS JOIN unnest(${points.map((p) => p.lon)}::float8[], ${points.map((p) => p.lat)}::float8[]) WITH ORDINALITY AS p(lon, lat, j)`.execute(t.db.kysely);
    expect(rows.rows).toHaveLength(tiles.length * points.length);
    for (const r of rows.rows) {
      const tile = tiles[Number(r.t) - 1]!;
      const point = points[Number(r.p) - 1]!;
      expect(r.owns, `${tile.id} ${point.lon},${point.lat}`).toBe(ownsPoint(tile, point, region));
    }
    for (const [j, point] of points.entries()) {
      const owners = rows.rows.filter((r) => Number(r.p) === j + 1 && r.owns).length;
      expect(owners, `${point.lon},${point.lat}`).toBe(1);
    }
  });
});
