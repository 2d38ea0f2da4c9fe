import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/index.js';
import { sqlDir } from '../../src/db/migrate.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { everyOperationNight } from '../helpers/job.js';

/**
 * A database that efa-sync 0.1 filled (test/fixtures/release-0.1.0.sql: two nights of job
 * legacy-night, made by commit 0ab3f43) is upgraded in place by `migrate`: nothing is lost, every
 * row gets the source of the job that first saw it, deletion state and change history survive, and
 * the next night of the old job runs incrementally, as it would have on 0.1.
 */
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const fixture = new URL('../fixtures/release-0.1.0.sql', import.meta.url);

describe('upgrade in place from 0.1', () => {
  let t: TestDb;
  let sim: Simulator;
  let before: Record<string, number>;
  const job = (baseUrl: string) => everyOperationNight('legacy-night', baseUrl, region);
  const counts = async (): Promise<Record<string, number>> => {
    const r = await sql<{ t: string; n: number }>`
      SELECT 'pins' t, count(*)::int n FROM efa.pins UNION ALL SELECT 'pins_deleted', count(*)::int FROM efa.pins WHERE deleted_at IS NOT NULL
      UNION ALL SELECT 'lines', count(*)::int FROM efa.lines UNION ALL SELECT 'stop_lines', count(*)::int FROM efa.stop_lines
      UNION ALL SELECT 'notices', count(*)::int FROM efa.notices UNION ALL SELECT 'notices_ended', count(*)::int FROM efa.notices WHERE ended_at IS NOT NULL
      UNION ALL SELECT 'providers', count(*)::int FROM efa.sharing_providers UNION ALL SELECT 'areas', count(*)::int FROM efa.operating_areas
      UNION ALL SELECT 'changes', count(*)::int FROM efa.changes UNION ALL SELECT 'run_seen', count(*)::int FROM efa.run_seen
      UNION ALL SELECT 'runs', count(*)::int FROM efa.runs`.execute(t.db.kysely);
    return Object.fromEntries(r.rows.map((x) => [x.t, x.n]));
  };

  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
    // The schema as 0.1 left it: its three migrations, then its rows.
    const old = await mkdtemp(join(tmpdir(), 'efa-sql-0.1-'));
    for (const m of (await readMigrations()).filter((m) => m.version <= 3)) {
      await cp(join(sqlDir, `${String(m.version).padStart(3, '0')}_${m.name}.sql`), join(old, `${String(m.version).padStart(3, '0')}_${m.name}.sql`));
    }
    await migrate(t.db, old);
    await rm(old, { recursive: true, force: true });
    await t.db.exec(await readFile(fixture, 'utf8'));
    before = await counts();
    // The world of the fixture's second night: seed 5, 600 pins, one POI removed, a stop renamed, a notice ended.
    sim = await startSimulator({ port: 0, seed: 5, size: 600, today });
    const w = sim.world;
    const truth = w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
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

  it('migrate keeps every row, deletion state and the change history, with the source of the job', async () => {
    expect(before).toMatchObject({ pins: 221, pins_deleted: 1, notices_ended: 1, changes: 335, runs: 2 });
    const result = await migrate(t.db);
    expect(result.applied).toEqual(expect.arrayContaining([4, 5]));
    expect(await counts()).toEqual(before);
    const sources = await sql<{ s: string }>`
      SELECT DISTINCT source AS s FROM (SELECT source FROM efa.pins UNION ALL SELECT source FROM efa.lines UNION ALL SELECT source FROM efa.stop_lines
        UNION ALL SELECT source FROM efa.notices UNION ALL SELECT source FROM efa.sharing_providers UNION ALL SELECT source FROM efa.operating_areas
        UNION ALL SELECT source FROM efa.changes UNION ALL SELECT source FROM efa.run_seen UNION ALL SELECT source FROM efa.runs) x`.execute(t.db.kysely);
    expect(sources.rows).toEqual([{ s: 'legacy-night' }]);
    // Pin keys name their kind, and the ledger's keys follow them.
    const orphans = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM efa.run_seen s WHERE s.relation = 'pins'
        AND NOT EXISTS (SELECT 1 FROM efa.pins p WHERE p.source = s.source AND p.pin_key = s.key)`.execute(t.db.kysely);
    expect(orphans.rows[0]?.n).toBe(0);
    const keys = await sql<{ ok: boolean }>`SELECT bool_and(pin_key = type || ':' || coalesce(id, substr(pin_key, length(type) + 2))) AS ok FROM efa.pins`.execute(t.db.kysely);
    expect(keys.rows[0]?.ok).toBe(true);
    const scopes = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.runs WHERE scope -> 'relations' ? 'notices'`.execute(t.db.kysely);
    expect(scopes.rows[0]?.n).toBe(2);
  });

  it('the next night of the old job writes no entity row against the unchanged world, and then exactly what changed', async () => {
    const third = await runJob({ loaded: job(sim.url), db: t.db, log: silent, today });
    expect(third.status).toBe('succeeded');
    expect(third.source).toBe('legacy-night');
    const written = await t.db.kysely.selectFrom('efa.changes').select(['relation', 'key', 'op']).where('run_id', '=', third.runId).execute();
    expect(written).toEqual([]);
    // Night two planned from the upgraded rows: close to the floor, nothing capped.
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
    expect(await dbComparable(t.db, 'legacy-night')).toEqual(truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today })));
  }, 300_000);
});
