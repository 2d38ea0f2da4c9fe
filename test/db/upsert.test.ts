import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { areasRelation, pinsRelation } from '../../src/db/relations.js';
import { partitionRepairableAreas } from '../../src/db/rejects.js';
import { upsertStopLines, upsertTracked } from '../../src/db/upsert.js';
import type { Pin } from '../../src/efa/records.js';
import { toPinRow } from '../../src/normalize/pins.js';
import { toProviderRows } from '../../src/normalize/providers.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

const stop = (id: string, name: string, lon = 9.18, lat = 48.78): Pin => ({
  type: 'STOP', id, name, coord: { lon, lat }, motTypes: [5, 1], attrs: { platform: '1' },
});

describe('set-based upsert with change detection', () => {
  let t: TestDb;
  let runs: string[] = [];
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    for (let i = 0; i < 4; i++) {
      const r = await t.db.kysely
        .insertInto('efa.runs')
        .values({ job_name: 'u', job_hash: 'h', status: 'running', finished_at: null, heartbeat_at: null, error: null, resumed_from: null })
        .returning('run_id')
        .executeTakeFirstOrThrow();
      runs.push(String(r.run_id));
    }
  });
  afterAll(async () => t?.dispose());

  it('inserts new rows, skips unchanged ones, updates changed ones and logs each', async () => {
    const k = t.db.kysely;
    const [r1, r2] = runs as [string, string];
    const first = await upsertTracked(k, pinsRelation, r1, [stop('a', 'Alpha'), stop('b', 'Beta'), stop('a', 'Alpha')].map(toPinRow));
    expect(first).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    const ctidBefore = await sql<{ ctid: string }>`SELECT ctid::text FROM efa.pins WHERE pin_key = 'a'`.execute(k);
    const second = await upsertTracked(k, pinsRelation, r2, [stop('a', 'Alpha'), stop('b', 'Beta renamed')].map(toPinRow));
    expect(second).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    // The unchanged row was not rewritten: same physical tuple.
    const ctidAfter = await sql<{ ctid: string }>`SELECT ctid::text FROM efa.pins WHERE pin_key = 'a'`.execute(k);
    expect(ctidAfter.rows[0]?.ctid).toBe(ctidBefore.rows[0]?.ctid);
    const rows = await k.selectFrom('efa.pins').select(['pin_key', 'name', 'mot_types', 'first_run', 'changed_run']).orderBy('pin_key').execute();
    expect(rows).toEqual([
      { pin_key: 'a', name: 'Alpha', mot_types: [1, 5], first_run: r1, changed_run: r1 },
      { pin_key: 'b', name: 'Beta renamed', mot_types: [1, 5], first_run: r1, changed_run: r2 },
    ]);
    const changes = await k.selectFrom('efa.changes').select(['run_id', 'key', 'op']).orderBy('change_id').execute();
    expect(changes).toEqual([
      { run_id: r1, key: 'a', op: 'insert' },
      { run_id: r1, key: 'b', op: 'insert' },
      { run_id: r2, key: 'b', op: 'update' },
    ]);
    const seen = await k.selectFrom('efa.run_seen').select(['run_id', 'key']).where('run_id', '=', r2).orderBy('key').execute();
    expect(seen.map((s) => s.key)).toEqual(['a', 'b']);
    const geo = await sql<{ x: number; y: number }>`SELECT ST_X(geom) x, ST_Y(geom) y FROM efa.pins WHERE pin_key = 'a'`.execute(k);
    expect(geo.rows[0]).toEqual({ x: 9.18, y: 48.78 });
  });

  it('revives a row marked deleted and logs it as a revived update', async () => {
    const k = t.db.kysely;
    await sql`UPDATE efa.pins SET deleted_at = now() WHERE pin_key = 'a'`.execute(k);
    const counts = await upsertTracked(k, pinsRelation, runs[2] as string, [toPinRow(stop('a', 'Alpha'))]);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const row = await k.selectFrom('efa.pins').select(['deleted_at']).where('pin_key', '=', 'a').executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    const log = await k.selectFrom('efa.changes').select(['op', 'detail']).where('run_id', '=', runs[2] as string).execute();
    expect(log).toEqual([{ op: 'update', detail: 'revived' }]);
  });

  it('stop-line pairs are inserted once', async () => {
    const k = t.db.kysely;
    await sql`INSERT INTO efa.lines (line_key, name, number, mot, direction, content_hash, first_run, changed_run)
      VALUES ('L1', 'U1', '1', 2, 'Fellbach', 'h', ${runs[0]}, ${runs[0]})`.execute(k);
    const pairs = [{ stopId: 'a', lineKey: 'L1' }, { stopId: 'a', lineKey: 'L1' }];
    expect(await upsertStopLines(k, runs[0] as string, pairs)).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(await upsertStopLines(k, runs[1] as string, pairs)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
  });

  it('repairs a self-intersecting area into a valid lon/lat MultiPolygon and rejects a collapsed one', async () => {
    const k = t.db.kysely;
    const { areas } = toProviderRows({
      id: 'p1', name: 'Bikes', vehicleType: 'BIKE', attrs: {},
      areas: [
        // A bow-tie: invalid as given, repairable into two triangles.
        { id: 'bow', name: 'Bow', ringsClosedByParser: false, attrs: {}, rings: [[[9.1, 48.7], [9.2, 48.8], [9.2, 48.7], [9.1, 48.8], [9.1, 48.7]]] },
        // All points on one line: nothing of area is left after repair.
        { id: 'flat', name: 'Flat', ringsClosedByParser: false, attrs: {}, rings: [[[9.1, 48.7], [9.2, 48.7], [9.3, 48.7], [9.1, 48.7]]] },
      ],
    });
    const { ok, rejected } = await partitionRepairableAreas(k, areas);
    expect(ok.map((a) => a.area_id)).toEqual(['bow']);
    expect(rejected.map((r) => r.area.area_id)).toEqual(['flat']);
    await upsertTracked(k, areasRelation, runs[0] as string, ok);
    const g = await sql<{ t: string; valid: boolean; n: number; minx: number; miny: number }>`
      SELECT GeometryType(geom) t, ST_IsValid(geom) valid, ST_NumGeometries(geom)::int n, ST_XMin(geom) minx, ST_YMin(geom) miny
      FROM efa.operating_areas WHERE area_key = 'p1/bow'`.execute(k);
    expect(g.rows[0]).toEqual({ t: 'MULTIPOLYGON', valid: true, n: 2, minx: 9.1, miny: 48.7 });
  });
});
