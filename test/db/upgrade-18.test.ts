import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations, type Db } from '../../src/db/index.js';
import { runJob } from '../../src/run/index.js';
import { startSimulator, type Simulator, type Truth } from '../../src/sim/index.js';
import { createLogger } from '../../src/util/log.js';
import { diffCatalogs, readCatalog, type Catalog } from '../helpers/catalog.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { everyOperationNight } from '../helpers/job.js';

/**
 * A warehouse that efa-sync at eb476e7 (schema version 18, the last released schema before the
 * definitions rewrite) filled with two nights and one snapshot run (test/fixtures/schema-18-two-nights.sql,
 * its header says how it was made) is upgraded in place by today's `migrate`: every row is kept, the
 * schema it ends with is the one a database migrated from zero has (readCatalog: every table, column,
 * view, function, trigger, comment and grant), history written by the old code answers as-of queries,
 * and the next nights of the old job run incrementally.
 */
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-27';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const fixture = new URL('../fixtures/schema-18-two-nights.sql', import.meta.url);

/** Rows per table (partitioned tables counted whole, their partitions not again). */
async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('efa', 'efa_private') AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`.execute(db.kysely);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.raw(name)}`.execute(db.kysely);
    counts[name] = r.rows[0]!.n;
  }
  return counts;
}

/** Pins as `type|id|name`, sorted: what a rename or a removal changes. */
const truthNames = (truth: Truth): string[] => truth.pins.map((p) => `${p.type}|${p.id ?? ''}|${p.name}`).sort();

/**
 * The day partitions of the snapshot tables hold data, not schema: the upgraded warehouse has the day of
 * its snapshot run, a database migrated from zero none. Left out of the comparison (and checked on their own).
 */
function withoutDayPartitions(catalog: Catalog): { catalog: Catalog; partitions: Record<string, string> } {
  const partitions = Object.fromEntries(
    Object.entries(catalog.relations).filter(([, r]) => r.partitionOf !== null).map(([name, r]) => [name, r.partitionOf!]),
  );
  const names = Object.keys(partitions);
  const mentions = (key: string): boolean => names.some((n) => key.includes(n) || key.includes(n.split('.')[1]!));
  const keep = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).filter(([k]) => !mentions(k)));
  return {
    catalog: {
      ...catalog,
      relations: keep(catalog.relations), constraints: keep(catalog.constraints), indexes: keep(catalog.indexes),
      triggers: keep(catalog.triggers), comments: keep(catalog.comments), grants: keep(catalog.grants),
    },
    partitions,
  };
}

describe('upgrade in place from schema 18 (eb476e7, two nights and a snapshot)', () => {
  let t: TestDb;
  let sim: Simulator;
  let fromZero: Catalog;
  let before: Record<string, number>;
  let nightOne: string[];
  const job = (baseUrl: string) => everyOperationNight('night-18', baseUrl, region);

  beforeAll(async () => {
    // The schema a new user gets today, migrated from zero in the same database first. The migrations
    // create nothing outside these three schemas (PostGIS is there before them), so dropping them leaves
    // the database as fresh as a second one would be, without opening a second PGlite (on PGlite the
    // opening of an instance is most of this file's time).
    t = await openTestDb({ migrated: false });
    await migrate(t.db);
    fromZero = await readCatalog(t.db);
    await t.db.exec('DROP SCHEMA efa, efa_private, efa_partitions CASCADE');
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'efa%'`.execute(t.db.kysely);
    expect(left.rows[0]!.n).toBe(0);

    await t.db.exec(await readFile(fixture, 'utf8'));
    before = await rowCounts(t.db);
    // The fixture's world: night one, then night two's changes, as the fixture was made.
    sim = await startSimulator({ port: 0, seed: 5, size: 600, today });
    const w = sim.world;
    const truth = w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
    nightOne = truthNames(truth);
    const pois = truth.pins.filter((p) => p.type === 'POI_POINT' && p.id !== undefined);
    w.removePin(pois[2]!.key);
    const stops = truth.pins.filter((p) => p.type === 'STOP');
    w.renamePin(stops[1]!.key, `${stops[1]!.name} (neu)`);
    w.endNotice(truth.notices[0]!.id);
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('migrate applies what came after 18 and keeps every row of every table', async () => {
    expect(before).toMatchObject({ 'efa.schema_migrations': 18, 'efa.pins': 221, 'efa.runs': 3, 'efa.pins_history': 2, 'efa.vehicle_snapshots': 89, 'efa.parking_snapshots': 38 });
    const result = await migrate(t.db);
    expect(result.applied).toEqual((await readMigrations()).map((m) => m.version).filter((v) => v > 18));
    expect(result.applied).toEqual(expect.arrayContaining([19, 22, 28]));
    const after = await rowCounts(t.db);
    // efa.schema_migrations gains a row per migration applied; every other table keeps its rows.
    expect(after['efa.schema_migrations']).toBe(before['efa.schema_migrations']! + result.applied.length);
    const kept = Object.keys(before).filter((k) => k !== 'efa.schema_migrations');
    expect(Object.fromEntries(kept.map((k) => [k, after[k]]))).toEqual(Object.fromEntries(kept.map((k) => [k, before[k]])));
  });

  it('ends with the schema of a database migrated from zero', async () => {
    const upgraded = withoutDayPartitions(await readCatalog(t.db));
    expect(diffCatalogs(withoutDayPartitions(fromZero).catalog, upgraded.catalog)).toEqual([]);
    // The snapshot run's day, moved into efa_partitions by migration 22 and still attached.
    expect(upgraded.partitions).toEqual({
      'efa_partitions.parking_snapshots_20261127': 'efa.parking_snapshots',
      'efa_partitions.snapshot_tiles_20261127': 'efa.snapshot_tiles',
      'efa_partitions.vehicle_snapshots_20261127': 'efa.vehicle_snapshots',
    });
  });

  it('history the old code wrote answers as of a time between the nights with night one', async () => {
    const between = await sql<{ at: Date }>`
      SELECT a.finished_at + (b.started_at - a.finished_at) / 2 AS at FROM efa.runs a, efa.runs b WHERE a.run_id = 1 AND b.run_id = 2`.execute(t.db.kysely);
    const asOf = await sql<{ t: string }>`
      SELECT type || '|' || coalesce(id, '') || '|' || name AS t FROM efa.pins_as_of(${between.rows[0]!.at}) ORDER BY 1`.execute(t.db.kysely);
    expect(asOf.rows.map((r) => r.t).sort()).toEqual(nightOne);
    const now = await sql<{ t: string }>`SELECT type || '|' || coalesce(id, '') || '|' || name AS t FROM efa.pins_as_of(now())`.execute(t.db.kysely);
    expect(now.rows.map((r) => r.t).sort()).toEqual(truthNames(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today })));
  });

  it('the next night of the old job writes nothing against the unchanged world, and then exactly what changed', async () => {
    const third = await runJob({ loaded: job(sim.url), db: t.db, log: silent, today });
    expect(third.status).toBe('succeeded');
    expect(third.source).toBe('night-18');
    const written = await t.db.kysely.selectFrom('efa.changes').select(['relation', 'key', 'op']).where('run_id', '=', third.runId).execute();
    expect(written).toEqual([]);
    expect(third.coord!.requests).toBeLessThanOrEqual(Math.ceil(1.3 * third.coord!.floor));

    const truth = sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
    const gone = truth.pins.filter((p) => p.type === 'POI_POINT' && p.id !== undefined)[7]!;
    sim.world.removePin(gone.key);
    sim.world.endNotice(truth.notices[1]!.id);
    const fourth = await runJob({ loaded: job(sim.url), db: t.db, log: silent, today });
    expect(fourth.status).toBe('succeeded');
    const log = await t.db.kysely.selectFrom('efa.changes').select(['relation', 'key', 'op']).where('run_id', '=', fourth.runId).orderBy('relation').execute();
    expect(log).toEqual([
      { relation: 'notices', key: truth.notices[1]!.id, op: 'delete' },
      { relation: 'pins', key: `POI_POINT:${gone.id}`, op: 'delete' },
    ]);
    expect(await dbComparable(t.db, 'night-18')).toEqual(truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today })));
  }, 300_000);
});
