import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { dbKind, type TestDb } from '../helpers/db.js';
import { harvestedDb, type HarvestedDb } from '../helpers/harvested.js';

const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const maxPerRequest = 40;
const entityTables = ['pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas'] as const;

/**
 * PostgreSQL's own tuple counters for the entity tables. Backends flush them lazily (at most every
 * second when idle, at the latest after 10 s), so wait until two readings 11 s apart agree.
 */
async function settledTupleWrites(t: TestDb): Promise<number> {
  const read = async (): Promise<number> => {
    await sql`SELECT pg_stat_clear_snapshot()`.execute(t.db.kysely);
    const r = await sql<{ n: string }>`
      SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS n FROM pg_stat_user_tables
      WHERE schemaname = 'efa' AND relname IN ('pins', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas')`.execute(t.db.kysely);
    return Number(r.rows[0]?.n ?? 0);
  };
  let previous = await read();
  for (;;) {
    await new Promise((r) => setTimeout(r, 11_000));
    const now = await read();
    if (now === previous) return now;
    previous = now;
  }
}

/** Physical row versions: a row whose xmin did not move was not rewritten. */
async function rowVersions(t: TestDb): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const table of entityTables) {
    const r = await sql<{ k: string; x: string }>`SELECT ctid::text || ':' || xmin::text AS x, row_to_json(t)::text AS k FROM ${sql.table(`efa.${table}`)} t`.execute(t.db.kysely);
    for (const row of r.rows) out.set(`${table}:${row.k.slice(0, 120)}`, row.x);
  }
  return out;
}

describe('incremental refresh against a changing world', () => {
  let harvested: HarvestedDb;
  let sim: Simulator;
  let t: TestDb;
  const night = (): Promise<RunSummary> => harvested.night();
  let first: RunSummary;

  beforeAll(async () => {
    harvested = await harvestedDb({
      seed: 9, size: 2000, today, name: 'nightly', region, types: ['STOP', 'POI_POINT'], maxPerRequest,
      sweeps: { servingLines: { forStops: true, refreshEveryNights: 1 } },
    });
    ({ sim, t } = harvested);
    first = harvested.run!;
  }, 300_000);
  afterAll(async () => {
    await harvested?.dispose();
  });

  it('night two against an unchanged API writes no entity row and costs close to the floor', async () => {
    expect(first.status).toBe('succeeded');
    // The run's phases add up to its one duration (each rounded to 0.1 s): the scale bench reads them.
    const phases = first.phases!;
    expect(phases.loadS).toBeLessThanOrEqual(phases.sweepS + 0.1);
    expect(Math.abs(phases.sweepS + (first.finaliseS ?? Number.NaN) - first.durationS)).toBeLessThanOrEqual(0.25);
    const onServer = dbKind() === 'postgres';
    const tuplesBefore = onServer ? await settledTupleWrites(t) : 0;
    const before = await rowVersions(t);
    const second = await night();
    expect(second.status).toBe('succeeded');
    expect(await rowVersions(t)).toEqual(before);
    if (onServer) expect(await settledTupleWrites(t)).toBe(tuplesBefore);
    const changes = await t.db.kysely.selectFrom('efa.changes').select('change_id').where('run_id', '=', second.runId).execute();
    expect(changes).toEqual([]);
    const c = second.coord!;
    console.log(`night 1: ${first.coord?.requests} CoordInfo requests; night 2: ${c.requests}; floor ${c.floor}`);
    expect(c.requests).toBeLessThanOrEqual(1.3 * c.floor);
    const capped = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.run_tiles WHERE run_id = ${second.runId}::bigint AND status IN ('capped', 'split')`.execute(t.db.kysely);
    expect(capped.rows[0]?.n).toBe(0);
  }, 300_000);

  it('after adding, moving, renaming and removing objects, exactly those rows change', async () => {
    const w = sim.world;
    const truth0 = w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
    const stops = truth0.pins.filter((p) => p.type === 'STOP');
    const pois = truth0.pins.filter((p) => p.type === 'POI_POINT' && p.id !== undefined);
    const [moved, renamed] = [stops[3]!, stops[7]!];
    const removed = pois[5]!;
    w.movePin(moved.key, moved.lon + 0.0004, moved.lat - 0.0003);
    w.renamePin(renamed.key, `${renamed.name} (neu)`);
    w.removePin(removed.key);
    const added = w.addPin({ type: 'POI_POINT', id: 'poi:test:added', name: 'Neues Café', lon: 9.2, lat: 48.78 });
    const pair = truth0.stopLines[0]!;
    w.removeLineAtStop(pair.stopId, pair.lineId);
    const changedLine = truth0.lines[2]!;
    w.changeLine(changedLine.id, { direction: `${changedLine.direction} (Umleitung)` });
    const endedNotice = truth0.notices[0]!;
    w.endNotice(endedNotice.id);
    const provider = truth0.providers[0]!;
    const area = provider.areas[0]!;
    w.removeArea(provider.id, area.id);

    const third = await night();
    expect(third.status).toBe('succeeded');
    const truth = truthComparable(w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
    const stored = await dbComparable(t.db);
    expect(stored).toEqual(truth);

    const k = t.db.kysely;
    const changedPins = await k.selectFrom('efa.pins').select('pin_key').where('changed_run', '=', third.runId).orderBy('pin_key').execute();
    expect(changedPins.map((p) => p.pin_key).sort()).toEqual([`STOP:${moved.id}`, `STOP:${renamed.id}`, `POI_POINT:${added.id}`].sort());
    const deletedPins = await k.selectFrom('efa.pins').select('pin_key').where('deleted_at', 'is not', null).execute();
    expect(deletedPins.map((p) => p.pin_key)).toEqual([`POI_POINT:${removed.id}`]);
    const log = await k.selectFrom('efa.changes').select(['relation', 'key', 'op']).where('run_id', '=', third.runId).orderBy('relation').orderBy('key').execute();
    const expected = [
      { relation: 'lines', key: changedLine.id, op: 'update' },
      { relation: 'notices', key: endedNotice.id, op: 'delete' },
      { relation: 'operating_areas', key: `${provider.id}/${area.id}`, op: 'delete' },
      { relation: 'pins', key: `POI_POINT:${added.id!}`, op: 'insert' },
      { relation: 'pins', key: `STOP:${moved.id!}`, op: 'update' },
      { relation: 'pins', key: `STOP:${renamed.id!}`, op: 'update' },
      { relation: 'pins', key: `POI_POINT:${removed.id!}`, op: 'delete' },
      { relation: 'stop_lines', key: `${pair.stopId}|${pair.lineId}`, op: 'delete' },
    ];
    const sortKey = (c: { relation: string; key: string }): string => `${c.relation} ${c.key}`;
    expect([...log].sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual([...expected].sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
    const stats = third.stats as Record<string, { inserted: number; updated: number; deleted: number }>;
    expect(stats['pins']).toMatchObject({ inserted: 1, updated: 2, deleted: 1 });
  }, 300_000);

  it('an object that comes back is revived and logged', async () => {
    const gone = (await t.db.kysely.selectFrom('efa.pins').select(['pin_key', 'id', 'name', 'type']).where('deleted_at', 'is not', null).executeTakeFirstOrThrow());
    const coords = await sql<{ x: number; y: number }>`SELECT ST_X(geom) x, ST_Y(geom) y FROM efa.pins WHERE pin_key = ${gone.pin_key}`.execute(t.db.kysely);
    sim.world.addPin({ type: 'POI_POINT', id: gone.id!, name: gone.name, lon: coords.rows[0]!.x, lat: coords.rows[0]!.y });
    const fourth = await night();
    const row = await t.db.kysely.selectFrom('efa.pins').select('deleted_at').where('pin_key', '=', gone.pin_key).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    const log = await t.db.kysely.selectFrom('efa.changes').select(['op', 'detail']).where('run_id', '=', fourth.runId).where('relation', '=', 'pins').execute();
    expect(log).toEqual([{ op: 'update', detail: 'revived' }]);
  }, 300_000);
});
