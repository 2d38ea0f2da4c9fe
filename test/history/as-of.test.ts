import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_RELATIONS, loadWhatChanged, pruneHistory } from '../../src/history/index.js';
import { renderReportHtml, loadReportData } from '../../src/report/index.js';
import { changeWorld, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { truthComparable, type Comparable } from '../helpers/compare.js';
import type { TestDb } from '../helpers/db.js';
import { harvestedDb, type HarvestedDb } from '../helpers/harvested.js';
import { asOfComparable, asOfRows, liveRows, runTimes } from './helpers.js';

/**
 * Every version kept (sql/014_history.sql), end to end against the simulator: after night 1 at t1
 * and a changed night 2 at t2, the as-of functions give back each night's world object by object,
 * and nothing before night 1.
 */
const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const types = ['STOP', 'POI_POINT'] as const;

describe('history: the warehouse as of any time', () => {
  let harvested: HarvestedDb;
  let sim: Simulator;
  let t: TestDb;
  const night = (): Promise<RunSummary> => harvested.night();
  const truthNow = (): Comparable => truthComparable(sim.world.truth([...region], { types: [...types], date: today }));
  let night1: RunSummary, night2: RunSummary;
  let truth1: Comparable, truth2: Comparable;
  let live1: Awaited<ReturnType<typeof liveRows>>, live2: Awaited<ReturnType<typeof liveRows>>;
  let renamed: { key: string; before: string; after: string };
  let moved: { key: string; lon: number; lat: number };

  beforeAll(async () => {
    harvested = await harvestedDb({
      seed: 14, size: 1200, today, name: 'hist', region, types, maxPerRequest: 60,
      sweeps: { servingLines: { forStops: true, refreshEveryNights: 1 } },
    });
    ({ sim, t } = harvested);
    night1 = harvested.run!;
    truth1 = truthNow();
    live1 = await liveRows(t.db);
    // Between the nights: a share of the pins removed, moved and added (as `sim --change` does), a
    // stop renamed and one moved, a line's direction changed, a notice ended and one retitled.
    const w = sim.world;
    const before = w.truth([...region], { types: [...types], date: today });
    changeWorld(w, 0.05, 3);
    // Two stops the change left alone: one renamed, one moved about 90 m.
    const untouched = new Set(before.pins.map((p) => `${p.type}|${p.id ?? ''}|${p.name}|${p.lon}|${p.lat}`));
    const stops = w
      .truth([...region], { types: [...types], date: today })
      .pins.filter((p) => p.type === 'STOP' && p.id !== undefined && untouched.has(`${p.type}|${p.id ?? ''}|${p.name}|${p.lon}|${p.lat}`));
    const r = stops[2]!;
    renamed = { key: `STOP:${r.id!}`, before: r.name, after: `${r.name} (neu)` };
    w.renamePin(r.key, renamed.after);
    const m = stops[5]!;
    moved = { key: `STOP:${m.id!}`, lon: Math.round((m.lon + 0.001) * 1e6) / 1e6, lat: Math.round((m.lat + 0.0005) * 1e6) / 1e6 };
    w.movePin(m.key, moved.lon, moved.lat);
    w.changeLine(before.lines[1]!.id, { direction: `${before.lines[1]!.direction} (Umleitung)` });
    w.endNotice(before.notices[0]!.id);
    w.changeNotice(before.notices[1]!.id, { title: `${before.notices[1]!.title} (aktualisiert)` });
    night2 = await night();
    truth2 = truthNow();
    live2 = await liveRows(t.db);
  }, 600_000);
  afterAll(async () => {
    await harvested?.dispose();
  });

  it('as of night 1 and night 2: each night\'s world, object by object; before night 1: nothing', async () => {
    expect(night1.status).toBe('succeeded');
    expect(night2.status).toBe('succeeded');
    const r1 = await runTimes(t.db, night1.runId);
    const r2 = await runTimes(t.db, night2.runId);
    // The second night really changed things, or this test proves nothing.
    expect(truth2.pins).not.toEqual(truth1.pins);
    expect(truth2.notices).not.toEqual(truth1.notices);

    expect(await asOfComparable(t.db, r1.finishedAt)).toEqual(truth1);
    expect(await asOfComparable(t.db, r2.finishedAt)).toEqual(truth2);
    // Every column of every relation, as the tables held it after each night.
    expect(await asOfRows(t.db, r1.finishedAt)).toEqual(live1);
    expect(await asOfRows(t.db, r2.finishedAt)).toEqual(live2);
    // Between the nights the warehouse still showed night 1.
    expect(await asOfRows(t.db, new Date((r1.finishedAt.getTime() + r2.startedAt.getTime()) / 2))).toEqual(live1);
    const empty = await asOfRows(t.db, new Date(r1.startedAt.getTime() - 1000));
    for (const r of HISTORY_RELATIONS) expect(empty[r], r).toEqual([]);
    expect(live1.pins.length).toBeGreaterThan(100);
    expect(live1.notices.length).toBeGreaterThan(1);
  });

  it('versions and diff name the renamed and the moved stop with old and new values', async () => {
    const r1 = await runTimes(t.db, night1.runId);
    const r2 = await runTimes(t.db, night2.runId);
    const versions = await sql<{ name: string; ended_by: string | null; version_from: Date; version_to: Date | null }>`
      SELECT name, ended_by, version_from, version_to FROM efa.pins_versions(${renamed.key})`.execute(t.db.kysely);
    expect(versions.rows.map((v) => [v.name, v.ended_by])).toEqual([[renamed.before, 'update'], [renamed.after, null]]);
    expect(new Date(versions.rows[0]!.version_to!)).toEqual(r2.startedAt);
    expect(new Date(versions.rows[1]!.version_from)).toEqual(r2.startedAt);

    const diff = await sql<{ key: string; change: string; old: { name: string } | null; new: { name: string; geom: { coordinates: number[] } } | null }>`
      SELECT key, change, old, new FROM efa.diff('pins', ${r1.finishedAt.toISOString()}::timestamptz, ${r2.finishedAt.toISOString()}::timestamptz)`.execute(t.db.kysely);
    const byKey = new Map(diff.rows.map((d) => [d.key, d]));
    expect(byKey.get(renamed.key)).toMatchObject({ change: 'changed', old: { name: renamed.before }, new: { name: renamed.after } });
    expect(byKey.get(moved.key)?.new?.geom.coordinates).toEqual([moved.lon, moved.lat]);
    // The diff is exactly the keys whose rows differ between the two nights.
    const keyOf = (j: string): string => (JSON.parse(j) as { pin_key: string }).pin_key;
    const k1 = new Map(live1.pins.map((j) => [keyOf(j), j]));
    const k2 = new Map(live2.pins.map((j) => [keyOf(j), j]));
    const expected = {
      added: [...k2.keys()].filter((k) => !k1.has(k)).length,
      removed: [...k1.keys()].filter((k) => !k2.has(k)).length,
    };
    expect(diff.rows.filter((d) => d.change === 'added').length).toBe(expected.added);
    expect(diff.rows.filter((d) => d.change === 'removed').length).toBe(expected.removed);
    expect(expected.added).toBeGreaterThan(0);
    expect(expected.removed).toBeGreaterThan(0);
    const notices = await sql<{ change: string }>`
      SELECT change FROM efa.diff('notices', ${r1.finishedAt.toISOString()}::timestamptz, ${r2.finishedAt.toISOString()}::timestamptz)`.execute(t.db.kysely);
    expect(notices.rows.map((n) => n.change).sort()).toEqual(['changed', 'removed']);
    await expect(sql`SELECT * FROM efa.diff('runs', now(), now())`.execute(t.db.kysely)).rejects.toThrow(/keeps no history/);
  });

  it('the report lists changes per run and the renamed and moved stops with before and after', async () => {
    const r2 = await runTimes(t.db, night2.runId);
    const w = await loadWhatChanged(t.db.kysely, { source: 'hist', until: r2.finishedAt });
    expect([...new Set(w.runs.map((r) => r.runId))]).toEqual([night1.runId, night2.runId]);
    const pins2 = w.runs.find((r) => r.runId === night2.runId && r.relation === 'pins')!;
    expect(pins2.updated).toBeGreaterThan(0);
    const ren = w.stops.find((s) => s.pinKey === renamed.key)!;
    expect(ren).toMatchObject({ nameBefore: renamed.before, nameAfter: renamed.after, movedM: 0, runId: night2.runId });
    const mov = w.stops.find((s) => s.pinKey === moved.key)!;
    expect(mov).toMatchObject({ lonAfter: moved.lon, latAfter: moved.lat });
    expect(mov.movedM).toBeGreaterThan(50);
    expect(mov.movedM).toBeLessThan(150);
    const html = renderReportHtml(await loadReportData(t.db, night2.runId));
    expect(html).toContain('What changed (last 30 days)');
    expect(html).toContain(renamed.after.replaceAll("'", '&#39;'));
    expect(html).toMatch(/<svg class="chart changes"/);
  });

  it('an unchanged night writes no version; pruning drops ended versions and never a current row', async () => {
    const count = async (): Promise<number> => {
      const parts = HISTORY_RELATIONS.map((r) => `SELECT count(*) AS n FROM efa.${r}_history`).join(' UNION ALL ');
      const r = await sql<{ n: number }>`SELECT sum(n)::int AS n FROM (${sql.raw(parts)}) x`.execute(t.db.kysely);
      return r.rows[0]?.n ?? 0;
    };
    const kept = await count();
    expect(kept).toBeGreaterThan(0);
    const night3 = await night();
    expect(night3.status).toBe('succeeded');
    expect(await count()).toBe(kept);
    const r2 = await runTimes(t.db, night2.runId);
    const r3 = await runTimes(t.db, night3.runId);
    const pruned = await pruneHistory(t.db.kysely, new Date(r3.finishedAt.getTime() + 1000));
    expect(Object.values(pruned).reduce((n, v) => n + v, 0)).toBe(kept);
    expect(await count()).toBe(0);
    expect(await liveRows(t.db)).toEqual(live2);
    expect(await asOfRows(t.db, r3.finishedAt)).toEqual(live2);
    expect(await asOfRows(t.db, r2.finishedAt)).toEqual(live2);
  }, 300_000);
});
