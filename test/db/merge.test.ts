import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/index.js';
import { rejectUnrepairableAreas } from '../../src/db/areas.js';
import { createRun, type OpenedRun } from '../../src/db/runs.js';
import { mergeRows } from '../../src/db/merge.js';
import type { Pin } from '../../src/efa/records.js';
import { lines, operatingAreas, pins, stopLines, toLineRow, toPinRow, toProviderRows } from '../../src/relations/index.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';

const stop = (id: string, name: string, lon = 9.18, lat = 48.78): Pin => ({
  type: 'STOP', id, name, coord: { lon, lat }, motTypes: [5, 1], attrs: { platform: '1\ttab\\slash\nnewline' },
});

describe('the loader: COPY into staging, one set-based merge', () => {
  let t: TestDb;
  const runs: OpenedRun[] = [];
  const other: OpenedRun[] = [];
  const scope = (source: string) => ({ source, region: '{}', regionMax: [0, 0] as const, relations: {} });
  beforeAll(async () => {
    t = await openTestDb();
    await migrate(t.db);
    for (let i = 0; i < 4; i++) runs.push(await createRun(t.db.kysely, { jobName: 'u', jobHash: 'h', scope: scope('A'), options: {} }));
    other.push(await createRun(t.db.kysely, { jobName: 'v', jobHash: 'h', scope: scope('B'), options: {} }));
  });
  afterAll(async () => t?.dispose());
  const merge = <R>(entity: Parameters<typeof mergeRows<R>>[1], run: OpenedRun, rows: readonly R[]) => t.db.transaction((tx) => mergeRows(tx, entity, run, rows));

  it('inserts new rows, skips unchanged ones, updates changed ones and logs each, with the source', async () => {
    const k = t.db.kysely;
    const [r1, r2] = runs as [OpenedRun, OpenedRun];
    const first = await merge(pins, r1, [stop('a', 'Alpha'), stop('b', 'Beta'), stop('a', 'Alpha')].map(toPinRow));
    expect(first).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    const ctidBefore = await sql<{ ctid: string }>`SELECT ctid::text FROM efa.pins WHERE pin_key = 'STOP:a'`.execute(k);
    const second = await merge(pins, r2, [stop('a', 'Alpha'), stop('b', 'Beta renamed')].map(toPinRow));
    expect(second).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    // The unchanged row was not rewritten: same physical tuple.
    const ctidAfter = await sql<{ ctid: string }>`SELECT ctid::text FROM efa.pins WHERE pin_key = 'STOP:a'`.execute(k);
    expect(ctidAfter.rows[0]?.ctid).toBe(ctidBefore.rows[0]?.ctid);
    const rows = await k.selectFrom('efa.pins').select(['source', 'pin_key', 'name', 'mot_types', 'attrs', 'first_run', 'changed_run']).orderBy('pin_key').execute();
    expect(rows).toEqual([
      { source: 'A', pin_key: 'STOP:a', name: 'Alpha', mot_types: [1, 5], attrs: { platform: '1\ttab\\slash\nnewline' }, first_run: r1.runId, changed_run: r1.runId },
      { source: 'A', pin_key: 'STOP:b', name: 'Beta renamed', mot_types: [1, 5], attrs: { platform: '1\ttab\\slash\nnewline' }, first_run: r1.runId, changed_run: r2.runId },
    ]);
    const changes = await k.selectFrom('efa.changes').select(['run_id', 'source', 'key', 'op']).orderBy('change_id').execute();
    expect(changes).toEqual([
      { run_id: r1.runId, source: 'A', key: 'STOP:a', op: 'insert' },
      { run_id: r1.runId, source: 'A', key: 'STOP:b', op: 'insert' },
      { run_id: r2.runId, source: 'A', key: 'STOP:b', op: 'update' },
    ]);
    const seen = await k.selectFrom('efa.run_seen').select(['key', 'source']).where('run_id', '=', r2.runId).orderBy('key').execute();
    expect(seen).toEqual([{ key: 'STOP:a', source: 'A' }, { key: 'STOP:b', source: 'A' }]);
    const geo = await sql<{ x: number; y: number }>`SELECT ST_X(geom) x, ST_Y(geom) y FROM efa.pins WHERE pin_key = 'STOP:a'`.execute(k);
    expect(geo.rows[0]).toEqual({ x: 9.18, y: 48.78 });
  });

  it('another source with the same ids gets rows of its own and touches none of the first', async () => {
    const k = t.db.kysely;
    const before = await sql<{ x: string }>`SELECT string_agg(ctid::text || xmin::text, ',' ORDER BY fid) AS x FROM efa.pins WHERE source = 'A'`.execute(k);
    const counts = await merge(pins, other[0]!, [stop('a', 'Anderswo', 8.5, 49.1), stop('b', 'Beta renamed')].map(toPinRow));
    expect(counts).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    const after = await sql<{ x: string }>`SELECT string_agg(ctid::text || xmin::text, ',' ORDER BY fid) AS x FROM efa.pins WHERE source = 'A'`.execute(k);
    expect(after.rows[0]?.x).toBe(before.rows[0]?.x);
    const bySource = await sql<{ source: string; n: number }>`SELECT source, count(*)::int AS n FROM efa.pins GROUP BY source ORDER BY source`.execute(k);
    expect(bySource.rows).toEqual([{ source: 'A', n: 2 }, { source: 'B', n: 2 }]);
  });

  it('a STOP and a POI answering with the same id are two objects', async () => {
    const poi: Pin = { type: 'POI_POINT', id: 'a', name: 'Café Alpha', coord: { lon: 9.181, lat: 48.781 }, motTypes: [], attrs: {} };
    const counts = await merge(pins, runs[2]!, [toPinRow(stop('a', 'Alpha')), toPinRow(poi)]);
    expect(counts).toEqual({ inserted: 1, updated: 0, unchanged: 1 });
    const keys = await t.db.kysely.selectFrom('efa.pins').select('pin_key').where('source', '=', 'A').where('id', '=', 'a').orderBy('pin_key').execute();
    expect(keys.map((r) => r.pin_key)).toEqual(['POI_POINT:a', 'STOP:a']);
  });

  it('duplicate keys in one batch resolve the same way in any order', async () => {
    const x = toPinRow(stop('dup', 'X', 9.1, 48.7));
    const y = toPinRow(stop('dup', 'Y', 9.2, 48.8));
    await merge(pins, runs[0]!, [x, y]);
    const kept = await t.db.kysely.selectFrom('efa.pins').select('name').where('pin_key', '=', 'STOP:dup').executeTakeFirstOrThrow();
    await merge(pins, runs[1]!, [y, x]);
    const again = await t.db.kysely.selectFrom('efa.pins').select(['name', 'changed_run']).where('pin_key', '=', 'STOP:dup').executeTakeFirstOrThrow();
    expect(again).toEqual({ name: kept.name, changed_run: runs[0]!.runId });
  });

  it('revives a row marked deleted and logs it as a revived update', async () => {
    const k = t.db.kysely;
    await sql`UPDATE efa.pins SET deleted_at = now() WHERE pin_key = 'STOP:a' AND source = 'A'`.execute(k);
    const counts = await merge(pins, runs[3]!, [toPinRow(stop('a', 'Alpha'))]);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const row = await k.selectFrom('efa.pins').select(['deleted_at']).where('pin_key', '=', 'STOP:a').where('source', '=', 'A').executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    const log = await k.selectFrom('efa.changes').select(['op', 'detail']).where('run_id', '=', runs[3]!.runId).execute();
    expect(log).toEqual([{ op: 'update', detail: 'revived' }]);
  });

  it('stop-line pairs are inserted once', async () => {
    const line = toLineRow({ id: 'L1', name: 'U1', number: '1', mot: 2, direction: 'Fellbach', attrs: {} });
    await merge(lines, runs[0]!, [line]);
    const pairs = [{ stop_id: 'a', line_key: 'L1' }, { stop_id: 'a', line_key: 'L1' }];
    expect(await merge(stopLines, runs[0]!, pairs)).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(await merge(stopLines, runs[1]!, pairs)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
  });

  it('repairs a self-intersecting area into a valid lon/lat MultiPolygon and rejects a collapsed one', async () => {
    const k = t.db.kysely;
    const { areas } = toProviderRows({
      id: 'p1', name: 'Bikes', vehicleType: 'BIKE', attrs: {},
      areas: [
        // A bow-tie: invalid as given, repairable into two triangles.
        { id: 'bow', name: 'Bow', ringsClosedByParser: false, attrs: {}, polygons: [[[[9.1, 48.7], [9.2, 48.8], [9.2, 48.7], [9.1, 48.8], [9.1, 48.7]]]] },
        // All points on one line: nothing of area is left after repair.
        { id: 'flat', name: 'Flat', ringsClosedByParser: false, attrs: {}, polygons: [[[[9.1, 48.7], [9.2, 48.7], [9.3, 48.7], [9.1, 48.7]]]] },
      ],
    });
    const { ok, rejected } = await rejectUnrepairableAreas(k, areas);
    expect(ok.map((a) => a.area_id)).toEqual(['bow']);
    expect(rejected.map((r) => r.area.area_id)).toEqual(['flat']);
    await merge(operatingAreas, runs[0]!, ok);
    const g = await sql<{ t: string; valid: boolean; n: number; minx: number; miny: number }>`
      SELECT GeometryType(geom) t, ST_IsValid(geom) valid, ST_NumGeometries(geom)::int n, ST_XMin(geom) minx, ST_YMin(geom) miny
      FROM efa.operating_areas WHERE area_key = 'p1/bow'`.execute(k);
    expect(g.rows[0]).toEqual({ t: 'MULTIPOLYGON', valid: true, n: 2, minx: 9.1, miny: 48.7 });
  });

  it('a batch of new keys goes straight into the table and stores what the merge path stores', async () => {
    const k = t.db.kysely;
    const [r1, r2] = runs as [OpenedRun, OpenedRun];
    const odd: Pin = { type: 'POI_POINT', id: 'x', name: 'Käse\\Bar\t', coord: { lon: 9.123456789012345, lat: -0.1 }, motTypes: [], attrs: { n: [1, { a: null }] } };
    // Source C: the whole batch is new, the fast path. Source D: one key already there, the merge path.
    await merge(pins, { ...r1, source: 'C' }, [odd, stop('c1', 'C1')].map(toPinRow));
    await merge(pins, { ...r1, source: 'D' }, [stop('d0', 'D0')].map(toPinRow));
    await merge(pins, { ...r2, source: 'D' }, [odd, stop('d0', 'D0')].map(toPinRow));
    const stored = await sql<Record<string, unknown>>`
      SELECT source, type, id, name, mot_types, ST_SRID(geom) AS srid, ST_X(geom) AS x, ST_Y(geom) AS y, global_id, attrs, content_hash
      FROM efa.pins WHERE source IN ('C', 'D') AND pin_key = 'POI_POINT:x' ORDER BY source`.execute(k);
    const [c, d] = stored.rows.map(({ source: _s, ...rest }) => rest);
    expect(c).toEqual(d);
    expect(c).toMatchObject({ name: 'Käse\\Bar\t', srid: 4326, x: 9.1234568, y: -0.1, attrs: { n: [1, { a: null }] } });
    const log = await sql<{ source: string; key: string; op: string }>`
      SELECT source, key, op FROM efa.changes WHERE source IN ('C', 'D') ORDER BY source, key`.execute(k);
    expect(log.rows).toEqual([
      { source: 'C', key: 'POI_POINT:x', op: 'insert' }, { source: 'C', key: 'STOP:c1', op: 'insert' },
      { source: 'D', key: 'POI_POINT:x', op: 'insert' }, { source: 'D', key: 'STOP:d0', op: 'insert' },
    ]);
  });

  // Two jobs of one source load the same new key at once: the second's COPY meets the first's row
  // at the unique key, and the batch is merged instead of failing.
  it.skipIf(dbKind() !== 'postgres')('a key another job inserted since the check falls back to the merge', async () => {
    const [r1, r2] = runs as [OpenedRun, OpenedRun];
    const row = toPinRow(stop('race', 'Race'));
    let letFirstCommit!: () => void;
    const held = new Promise<void>((resolve) => (letFirstCommit = resolve));
    let firstWrote!: () => void;
    const wrote = new Promise<void>((resolve) => (firstWrote = resolve));
    const first = t.db.transaction(async (tx) => {
      const counts = await mergeRows(tx, pins, { ...r1, source: 'R' }, [row]);
      firstWrote();
      await held;
      return counts;
    });
    await wrote;
    // The second sees no stored key (the first has not committed), COPYs, and waits on the unique index.
    const second = t.db.transaction((tx) => mergeRows(tx, pins, { ...r2, source: 'R' }, [row, toPinRow(stop('race2', 'Race 2'))]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    letFirstCommit();
    expect(await first).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(await second).toEqual({ inserted: 1, updated: 0, unchanged: 1 });
    const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins WHERE source = 'R'`.execute(t.db.kysely);
    expect(n.rows[0]?.n).toBe(2);
  });
});
