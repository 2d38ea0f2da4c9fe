import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/index.js';
import { sqlDir } from '../../src/db/migrate.js';
import { HISTORY_RELATIONS } from '../../src/history/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { everyOperationNight } from '../helpers/job.js';
import { asOfRows, liveRows, runTimes } from './helpers.js';

/**
 * Upgrade in place: a warehouse at schema 13 (before history), filled by two nights (a stop renamed,
 * a POI removed and a notice ended in the second), is migrated to 14. History starts from today's
 * rows: live rows are current versions from their changed_run's start, rows already gone keep their
 * last version until they were marked gone; the nights after the upgrade keep every version.
 */
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;

describe('history: upgrade in place from schema 13', () => {
  let t: TestDb;
  let sim: Simulator;
  let night1: RunSummary, night2: RunSummary;
  let live2: Awaited<ReturnType<typeof liveRows>>;
  let removedKey: string, renamedKey: string, endedId: string;
  const job = (baseUrl: string) => everyOperationNight('old-night', baseUrl, region);
  const night = (): Promise<RunSummary> => runJob({ loaded: job(sim.url), db: t.db, log: silent, today });

  beforeAll(async () => {
    t = await openTestDb({ migrated: false });
    // The schema as today's main leaves it: migrations 1 to 13.
    const old = await mkdtemp(join(tmpdir(), 'efa-sql-13-'));
    for (const m of (await readMigrations()).filter((m) => m.version <= 13)) {
      const f = `${String(m.version).padStart(3, '0')}_${m.name}.sql`;
      await cp(join(sqlDir, f), join(old, f));
    }
    await migrate(t.db, old);
    await rm(old, { recursive: true, force: true });
    // A run migrates before it sweeps: 14 is recorded as applied (without its script) so the two
    // nights write a schema-13 warehouse, then the record goes and 14 really runs.
    // So is 26, which indexes the history tables 14 creates: it runs again after 14 does.
    for (const m of (await readMigrations()).filter((m) => m.version === 14 || m.version === 26)) {
      await sql`INSERT INTO efa.schema_migrations (version, name, checksum) VALUES (${m.version}, ${m.name}, ${m.checksum})`.execute(t.db.kysely);
    }
    sim = await startSimulator({ port: 0, seed: 31, size: 800, today });
    night1 = await night();
    const w = sim.world;
    const truth = w.truth([...region], { types: ['STOP', 'POI_POINT'], date: today });
    const poi = truth.pins.filter((p) => p.type === 'POI_POINT' && p.id !== undefined)[3]!;
    removedKey = `POI_POINT:${poi.id!}`;
    w.removePin(poi.key);
    const stop = truth.pins.filter((p) => p.type === 'STOP')[2]!;
    renamedKey = `STOP:${stop.id!}`;
    w.renamePin(stop.key, `${stop.name} (neu)`);
    endedId = truth.notices[0]!.id;
    w.endNotice(endedId);
    night2 = await night();
    live2 = await liveRows(t.db);
    // What 14 made is generated from the relations' declarations now (history tables synced, their
    // triggers and functions applied after the migrations), so the nights' migrate made it too: a
    // schema-13 warehouse has none of it, and the triggers' rows go with the tables.
    for (const r of HISTORY_RELATIONS) {
      await t.db.exec(`DROP TABLE efa.${r}_history; DROP FUNCTION efa.${r}_keep_history() CASCADE;
        DROP FUNCTION efa.${r}_as_of(timestamptz); DROP FUNCTION efa.${r}_versions(text, text);`);
    }
    await t.db.exec('DROP FUNCTION efa.history_relations();');
    // …nor a record of definitions applied (sql/029): the upgrade applies every one.
    await t.db.exec('DELETE FROM efa.schema_definitions;');
    await sql`DELETE FROM efa.schema_migrations WHERE version IN (14, 26)`.execute(t.db.kysely);
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('migrate 14 keeps every row and starts history from them', async () => {
    expect(night2.status).toBe('succeeded');
    const exists = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'pins_history'`.execute(t.db.kysely);
    expect(exists.rows[0]?.n).toBe(0);
    const result = await migrate(t.db);
    // 14, and 26 after it (the index of the history tables 14 creates).
    expect(result.applied).toEqual([14, 26]);
    expect(await liveRows(t.db)).toEqual(live2);
    // Rows already gone: their last version, until they were marked gone.
    const kept = await sql<{ key: string; ended_by: string; ok: boolean }>`
      SELECT h.pin_key AS key, h.ended_by, lower(h.valid) = r.started_at AND upper(h.valid) = p.deleted_at AS ok
      FROM efa.pins_history h JOIN efa.pins p ON p.fid = h.fid JOIN efa.runs r ON r.run_id = h.changed_run`.execute(t.db.kysely);
    expect(kept.rows).toEqual([{ key: removedKey, ended_by: 'gone', ok: true }]);
    const ended = await sql<{ key: string }>`SELECT notice_id AS key FROM efa.notices_history`.execute(t.db.kysely);
    expect(ended.rows).toEqual([{ key: endedId }]);

    const r1 = await runTimes(t.db, night1.runId);
    const r2 = await runTimes(t.db, night2.runId);
    expect(await asOfRows(t.db, r2.finishedAt)).toEqual(live2);
    // Between the nights: the removed POI is there; the renamed stop is shown from night 2 on only
    // (its night-1 name was overwritten before history existed; README says so).
    const mid = new Date((r1.finishedAt.getTime() + r2.startedAt.getTime()) / 2);
    const between = await sql<{ pin_key: string }>`SELECT pin_key FROM efa.pins_as_of(${mid.toISOString()}::timestamptz)`.execute(t.db.kysely);
    const keys = new Set(between.rows.map((r) => r.pin_key));
    expect(keys.has(removedKey)).toBe(true);
    expect(keys.has(renamedKey)).toBe(false);
    const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins_as_of(${new Date(r1.startedAt.getTime() - 1000).toISOString()}::timestamptz)`.execute(t.db.kysely);
    expect(before.rows[0]?.n).toBe(0);
  });

  it('the nights after the upgrade keep every version', async () => {
    const w = sim.world;
    const stop = w.truth([...region], { types: ['STOP'] }).pins[6]!;
    w.movePin(stop.key, stop.lon + 0.0007, stop.lat);
    const night3 = await night();
    expect(night3.status).toBe('succeeded');
    const r2 = await runTimes(t.db, night2.runId);
    const r3 = await runTimes(t.db, night3.runId);
    expect(await asOfRows(t.db, r2.finishedAt)).toEqual(live2);
    expect(await asOfRows(t.db, r3.finishedAt)).toEqual(await liveRows(t.db));
    const versions = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins_versions(${`STOP:${stop.id!}`})`.execute(t.db.kysely);
    expect(versions.rows[0]?.n).toBe(2);
  }, 300_000);
});
