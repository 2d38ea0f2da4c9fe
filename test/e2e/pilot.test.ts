import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { changeWorld, startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runCli } from '../helpers/cli.js';
import { dbComparable, truthComparable, type Comparable } from '../helpers/compare.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/**
 * The night-one pilot in the nightly sweep (sweeps.coord.pilot 'auto', src/sweep/nightly/pilot.ts) against
 * the simulator, whose types are dealt at random over one spatial law (they co-locate): fewer
 * CoordInfo requests than 'off' for exactly the same pins; night two (planned from known pins, as
 * today) marks nothing gone; a run killed during the strata resumes to the same pins, none twice.
 */
const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const types = ['STOP', 'POI_POINT'] as const;

function job(name: string, pilot: 'auto' | 'off' | undefined) {
  return {
    name,
    baseUrl: 'http://127.0.0.1:1/replaced-by-base-url',
    region: { bbox: [...region] },
    rateLimit: { requestsPerSecond: 200, concurrency: 4 },
    sweeps: { coord: { types: [...types], maxPerRequest: 150, parking: {}, ...(pilot ? { pilot } : {}) } },
  };
}

describe('night one by a pilot type in the nightly sweep', () => {
  let sim: Simulator;
  let dir: string;
  const dbs: TestDbUrl[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 31, size: 8000, today, coordOrder: 'random' });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-pilot-'));
  });
  afterAll(async () => {
    await sim?.stop();
    for (const d of dbs) await d.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function database(): Promise<TestDbUrl> {
    const d = await createTestDbUrl();
    dbs.push(d);
    return d;
  }

  async function night(db: TestDbUrl, name: string, pilot: 'auto' | 'off' | undefined, env: NodeJS.ProcessEnv = {}, on: Simulator = sim, args: readonly string[] = []) {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify(job(name, pilot)));
    const from = on.requestLog.length;
    const r = await runCli(['run', file, '--db', db.url, '--base-url', on.url, '--json', '--log-format', 'json', ...args], env, 240_000);
    const coordRequests = on.requestLog.slice(from).filter((e) => e.path.endsWith('XML_COORD_REQUEST')).length;
    return { ...r, coordRequests };
  }

  async function contents(db: TestDbUrl): Promise<{ all: Comparable; inserts: number; twice: number; gone: number; typed: number }> {
    const opened = await openDb(db.url);
    try {
      const all = await dbComparable(opened);
      const k = opened.kysely;
      const n = async (q: ReturnType<typeof sql<{ n: number }>>) => (await q.execute(k)).rows[0]?.n ?? -1;
      return {
        all,
        inserts: await n(sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.changes WHERE relation = 'pins' AND op = 'insert'`),
        twice: await n(sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT key FROM efa.changes WHERE relation = 'pins' AND op = 'insert' GROUP BY key HAVING count(*) > 1) d`),
        gone: await n(sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins WHERE deleted_at IS NOT NULL`),
        typed: await n(sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.run_tiles WHERE operation = 'coordInfo' AND types IS NOT NULL`),
      };
    } finally {
      await opened.close();
    }
  }

  let reference: Comparable | undefined;

  /** Where a killed run stopped: the strata decided, the planned stratum cut into blocks, its tiles done. */
  async function moment(db: TestDbUrl): Promise<string> {
    const opened = await openDb(db.url);
    try {
      const r = await sql<{ marker: string | null; blocks: number; blocks_left: number; planned_left: number; planned_done: number; split_left: number }>`
        WITH m AS (SELECT tile_id, status, types FROM efa.run_tiles WHERE operation = 'coordInfo' AND subject LIKE 'pilot:%')
        SELECT (SELECT status FROM m) AS marker,
               (SELECT count(*)::int FROM efa.run_tiles t, m WHERE t.parent_id = m.tile_id) AS blocks,
               (SELECT count(*)::int FROM efa.run_tiles t, m WHERE t.parent_id = m.tile_id AND t.status = 'pending') AS blocks_left,
               (SELECT count(*)::int FROM efa.run_tiles t, m WHERE t.types = m.types AND t.status = 'pending') AS planned_left,
               (SELECT count(*)::int FROM efa.run_tiles t, m WHERE t.types = m.types AND t.status = 'done') AS planned_done,
               (SELECT count(*)::int FROM efa.run_tiles t, m WHERE t.types IS NOT NULL AND t.types <> m.types AND t.status = 'pending') AS split_left`.execute(opened.kysely);
      const x = r.rows[0];
      return x?.marker == null ? 'root not answered' : `strata ${x.marker}; blocks ${x.blocks}, ${x.blocks_left} not planned; planned left ${x.planned_left}, done ${x.planned_done}; pilot's stratum left ${x.split_left}`;
    } finally {
      await opened.close();
    }
  }

  it("'auto' (also when left out) sends fewer CoordInfo requests than 'off' and stores the same pins; night two marks nothing gone", async () => {
    const offDb = await database();
    const off = await night(offDb, 'pilot-off', 'off');
    expect(off.code, off.stderr.slice(-800)).toBe(0);
    const autoDb = await database();
    const auto = await night(autoDb, 'pilot-auto', undefined);
    expect(auto.code, auto.stderr.slice(-800)).toBe(0);
    expect(auto.stderr).toMatch(/night one by a pilot: /);
    expect(off.stderr).not.toMatch(/night one by a pilot|no pilot/);
    expect(auto.coordRequests).toBeLessThan(off.coordRequests);

    const a = await contents(autoDb);
    const o = await contents(offDb);
    expect(a.all).toEqual(o.all);
    expect(a.typed).toBeGreaterThan(0);
    expect(o.typed).toBe(0);
    // Stops and POIs are every one of the world's (parking: the simulator's truth has none to compare with).
    const truth = truthComparable(sim.world.truth([...region], { types: [...types], date: today }));
    expect(a.all.pins.filter((p) => !p.startsWith('PARKING|'))).toEqual(truth.pins);
    expect(a.all.pins.some((p) => p.startsWith('PARKING|'))).toBe(true);
    reference = a.all;

    const two = await night(autoDb, 'pilot-auto', undefined);
    expect(two.code, two.stderr.slice(-800)).toBe(0);
    expect(two.stderr).toMatch(/tiles planned from \d+ known pins/);
    expect(two.stderr).not.toMatch(/night one by a pilot/);
    const after = await contents(autoDb);
    expect(after.gone).toBe(0);
    expect(after.all).toEqual(a.all);
    expect((JSON.parse(two.stdout) as RunSummary).status).toBe('succeeded');
    console.log(`coordInfo requests of night one: off ${off.coordRequests}, auto ${auto.coordRequests}; night two ${two.coordRequests}`);
  }, 600_000);

  it('a run killed during the pilot\'s strata resumes to the same pins, none inserted twice', async () => {
    if (reference === undefined) {
      // Run alone (-t): the uninterrupted night to compare with.
      const ref = await database();
      expect((await night(ref, 'pilot-auto', 'auto')).code).toBe(0);
      reference = (await contents(ref)).all;
    }
    const db = await database();
    // Killed inside tile transactions at several moments (the root's split with both strata, the
    // pilot's stratum, the planned blocks) and during a request; each attempt resumes the one before.
    const moments: string[] = [];
    for (const at of ['tile-commit:1', 'request:6', 'tile-commit:9', 'tile-commit:14', 'tile-commit:6']) {
      const r = await night(db, 'pilot-resume', 'auto', { EFA_SYNC_FAILPOINT: at });
      expect(r.code, `killed at ${at}: ${r.stderr.slice(-500)}`).toBeNull();
      moments.push(await moment(db));
    }
    // The kills fell before the root's answer was kept, inside the pilot's stratum, and between the
    // planned stratum's blocks (some not planned yet: planned on resume from the stored pilot pins).
    expect(moments[0]).toBe('root not answered');
    expect(moments[1]).toMatch(/^strata pending; .*pilot's stratum left [1-9]/);
    expect(moments.slice(2).some((m) => /^strata split; blocks [1-9]\d*, [1-9]\d* not planned; planned left [1-9]/.test(m)), moments.join('\n')).toBe(true);
    const last = await night(db, 'pilot-resume', 'auto');
    expect(last.code, last.stderr.slice(-800)).toBe(0);
    const summary = JSON.parse(last.stdout) as RunSummary;
    expect(summary.status).toBe('succeeded');
    expect(summary.resumed).toBe(true);
    const c = await contents(db);
    expect(c.all).toEqual(reference);
    expect(c.twice).toBe(0);
    expect(c.inserts).toBe(reference!.pins.length);
    expect(c.gone).toBe(0);
  }, 900_000);

  it('a --full night by the pilot marks gone exactly what the world lost, in both strata', async () => {
    const changing = await startSimulator({ port: 0, seed: 31, size: 8000, today, coordOrder: 'random' });
    try {
      const db = await database();
      expect((await night(db, 'pilot-full', 'auto', {}, changing)).code).toBe(0);
      const change = changeWorld(changing.world, 0.03, 7);
      expect(change.removed).toBeGreaterThan(0);
      const full = await night(db, 'pilot-full', 'auto', {}, changing, ['--full']);
      expect(full.code, full.stderr.slice(-800)).toBe(0);
      expect(full.stderr).toMatch(/night one by a pilot: /);
      const opened = await openDb(db.url);
      try {
        const live = await dbComparable(opened);
        const truth = truthComparable(changing.world.truth([...region], { types: [...types], date: today }));
        expect(live.pins.filter((p) => !p.startsWith('PARKING|'))).toEqual(truth.pins);
        // The pilot's stratum (stops) and the planned one (POIs) each proved its own pins absent.
        const gone = await sql<{ type: string }>`SELECT DISTINCT type FROM efa.pins WHERE deleted_at IS NOT NULL ORDER BY type`.execute(opened.kysely);
        expect(gone.rows.map((r) => r.type)).toEqual(expect.arrayContaining(['POI_POINT', 'STOP']));
        const strata = await sql<{ types: string[] }>`
          SELECT DISTINCT types FROM efa.run_tiles t JOIN efa.runs r USING (run_id)
          WHERE r.job_name = 'pilot-full' AND t.operation = 'coordInfo' AND t.status = 'done' AND r.run_id = (SELECT max(run_id) FROM efa.runs WHERE job_name = 'pilot-full')`.execute(opened.kysely);
        expect(strata.rows.length).toBe(2);
        expect(strata.rows.every((r) => r.types !== null)).toBe(true);
      } finally {
        await opened.close();
      }
    } finally {
      await changing.stop();
    }
  }, 600_000);
});
