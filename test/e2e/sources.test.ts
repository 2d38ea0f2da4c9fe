import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/index.js';
import { knownPinPoints } from '../../src/db/known.js';
import type { JobInput } from '../../src/job/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { dbKind, openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

/**
 * Issue 9's acceptance: three deployments over one region harvested into one database.
 * A and B number their stops the same way (same local ids, other places and names); C is A's world
 * under local ids of its own, sharing A's global stop ids. Three jobs run nights one to three,
 * interleaved and concurrently: every source's rows equal its simulator's truth, no run touches,
 * plans from or marks gone another source's rows, and efa.stop_places is the union by global id.
 */
const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.1, 48.72, 9.26, 48.82] as const;
const types = ['STOP', 'POI_POINT'] as const;

interface Deployment {
  readonly source: 'A' | 'B' | 'C';
  sim: Simulator;
}

const jobFor = (d: Deployment, extra: Partial<JobInput> = {}) =>
  inlineJob({
    name: `nightly-${d.source}`,
    source: d.source,
    baseUrl: d.sim.url,
    region: { bbox: [...region] },
    rateLimit: { requestsPerSecond: 400, concurrency: 4 },
    sweeps: {
      coord: { types: [...types], maxPerRequest: 80 },
      opArea: { mode: 'ALL', geometry: true },
      servingLines: { forStops: true, refreshEveryNights: 1 },
      addInfo: { publicationStatus: 'current' },
    },
    ...extra,
  });

describe('three deployments in one warehouse', () => {
  let t: TestDb;
  const deployments: Deployment[] = [];
  const summaries: RunSummary[] = [];
  const night = (d: Deployment, db: Db = t.db) => runJob({ loaded: jobFor(d), db, log: silent, today }).then((s) => (summaries.push(s), s));
  const truthOf = (d: Deployment) => d.sim.world.truth([...region], { types: [...types], date: today });

  beforeAll(async () => {
    const worlds = [
      { source: 'A', seed: 1, localIdBase: 1_000_000 },
      { source: 'B', seed: 2, localIdBase: 1_000_000 },
      { source: 'C', seed: 1, localIdBase: 7_000_000 },
    ] as const;
    for (const w of worlds) {
      const sim = await startSimulator({ port: 0, seed: w.seed, size: 1500, today, stopIds: 'local', localIdBase: w.localIdBase });
      deployments.push({ source: w.source, sim });
    }
    t = await openTestDb();
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    for (const d of deployments) await d.sim.stop();
  });

  const expectEveryoneTrue = async (): Promise<void> => {
    for (const d of deployments) expect(await dbComparable(t.db, d.source), `source ${d.source}`).toEqual(truthComparable(truthOf(d)));
  };
  const expectNoCrossSourceWrites = async (): Promise<void> => {
    const k = t.db.kysely;
    const crossed = await sql<{ n: number }>`
      SELECT ((SELECT count(*) FROM efa.changes c JOIN efa.runs r ON r.run_id = c.run_id WHERE c.source <> r.source)
           + (SELECT count(*) FROM efa.run_seen s JOIN efa.runs r ON r.run_id = s.run_id WHERE s.source <> r.source)
           + (SELECT count(*) FROM efa.pins p JOIN efa.runs r ON r.run_id IN (p.first_run, p.changed_run) WHERE r.source <> p.source)
           + (SELECT count(*) FROM efa.lines p JOIN efa.runs r ON r.run_id IN (p.first_run, p.changed_run) WHERE r.source <> p.source)
           + (SELECT count(*) FROM efa.stop_lines p JOIN efa.runs r ON r.run_id IN (p.first_run, p.changed_run) WHERE r.source <> p.source)
           + (SELECT count(*) FROM efa.notices p JOIN efa.runs r ON r.run_id IN (p.first_run, p.changed_run) WHERE r.source <> p.source)
           + (SELECT count(*) FROM efa.operating_areas p JOIN efa.runs r ON r.run_id IN (p.first_run, p.changed_run) WHERE r.source <> p.source)
        )::int AS n`.execute(k);
    expect(crossed.rows[0]?.n).toBe(0);
  };

  it('night one, interleaved: each source holds exactly its own world, ids colliding or not', async () => {
    for (const d of deployments) expect((await night(d)).status).toBe('succeeded');
    await expectEveryoneTrue();
    await expectNoCrossSourceWrites();
    // A and B share local stop ids: the same id is two rows, one per source.
    const shared = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM efa.pins a JOIN efa.pins b ON b.id = a.id AND b.type = a.type
      WHERE a.source = 'A' AND b.source = 'B' AND a.type = 'STOP'`.execute(t.db.kysely);
    expect(shared.rows[0]?.n).toBeGreaterThan(20);
  }, 300_000);

  it('efa.stop_places is the union of the three sources by global stop id', async () => {
    const expected = new Map<string, Map<string, string[]>>();
    for (const d of deployments) {
      for (const s of truthOf(d).pins.filter((p) => p.type === 'STOP' && p.globalId !== undefined)) {
        const bySource = expected.get(s.globalId!) ?? new Map<string, string[]>();
        bySource.set(d.source, [...(bySource.get(d.source) ?? []), s.id!].sort());
        expected.set(s.globalId!, bySource);
      }
    }
    const text = (gid: string, bySource: Map<string, string[]>) =>
      `${gid}|${[...bySource.keys()].sort().join(',')}|${[...bySource.keys()].sort().map((s) => `${s}=${bySource.get(s)!.join('+')}`).join(';')}`;
    const want = [...expected].map(([gid, m]) => text(gid, m)).sort();
    const rows = await sql<{ global_id: string; sources: string[]; stop_ids: Record<string, string[]> }>`
      SELECT global_id, sources, stop_ids FROM efa.stop_places`.execute(t.db.kysely);
    const got = rows.rows.map((r) => text(r.global_id, new Map(Object.entries(r.stop_ids).map(([s, ids]) => [s, [...ids].sort()])))).sort();
    expect(got).toEqual(want);
    // A and C are one world: every place of A is also one of C, joined.
    const joined = rows.rows.filter((r) => r.sources.includes('A') && r.sources.includes('C')).length;
    expect(joined).toBe(truthOf(deployments[0]!).pins.filter((p) => p.type === 'STOP').length);
  });

  it('nights two and three, concurrently, after changes in one world only: only that source changes', async () => {
    const [a, b, c] = deployments as [Deployment, Deployment, Deployment];
    const truthA = truthOf(a);
    const stopsA = truthA.pins.filter((p) => p.type === 'STOP');
    a.sim.world.removePin(stopsA[4]!.key);
    a.sim.world.renamePin(stopsA[9]!.key, `${stopsA[9]!.name} (neu)`);
    a.sim.world.endNotice(truthA.notices[0]!.id);
    // A second connection per job on a server, as separate processes would have (PGlite: one per data directory).
    const extra = dbKind() === 'postgres' ? await Promise.all([openDb(t.url), openDb(t.url)]) : [t.db, t.db];
    try {
      for (let n = 2; n <= 3; n++) {
        const runs = await Promise.all([night(a, t.db), night(b, extra[0]), night(c, extra[1])]);
        for (const r of runs) expect(r.status, `${r.source} night ${n}`).toBe('succeeded');
        const [ra, rb, rc] = runs as [RunSummary, RunSummary, RunSummary];
        if (n === 2) {
          expect(ra.relations.pins).toMatchObject({ inserted: 0, updated: 1, deleted: 1 });
          expect(ra.relations.notices).toMatchObject({ deleted: 1 });
        }
        for (const r of n === 2 ? [rb, rc] : runs) {
          const written = await t.db.kysely.selectFrom('efa.changes').select('key').where('run_id', '=', r.runId).execute();
          expect(written, `${r.source} night ${n}`).toEqual([]);
        }
      }
    } finally {
      if (dbKind() === 'postgres') for (const d of extra) await d.close();
    }
    await expectEveryoneTrue();
    await expectNoCrossSourceWrites();
  }, 600_000);

  it('night two plans only from its own source\'s pins', async () => {
    for (const d of deployments) {
      const points = await knownPinPoints(t.db.kysely, d.source, { types: [...types], maxPerRequest: 80, minTileSizeDeg: 0.002 }, { bbox: [...region] });
      expect(points.length / 2, d.source).toBe(truthOf(d).pins.length);
    }
  });
});

describe('jobs of one source with other scopes', () => {
  let t: TestDb;
  let sim: Simulator;
  const base = (name: string, sweeps: JobInput['sweeps']) =>
    inlineJob({ name, source: 'vvs', baseUrl: sim.url, region: { bbox: [...region] }, rateLimit: { requestsPerSecond: 400, concurrency: 4 }, sweeps });

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 4, size: 1500, today });
    t = await openTestDb();
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('a rail-only job (inclMOT 0, 1) deletes none of the full job\'s bus stops; a notices-only job deletes no pin', async () => {
    const full = base('vvs-full', { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 80 }, addInfo: { publicationStatus: 'current' } });
    const rail = base('vvs-rail', { coord: { types: ['STOP'], maxPerRequest: 80, inclMOT: [0, 1] } });
    const notices = base('vvs-notices', { addInfo: { publicationStatus: 'current', filterInfoType: ['lineInfo'] } });
    const first = await runJob({ loaded: full, db: t.db, log: silent, today });
    expect(first.status).toBe('succeeded');
    const live = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins WHERE deleted_at IS NULL`.execute(t.db.kysely)).rows[0]?.n;
    const liveNotices = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.notices WHERE ended_at IS NULL`.execute(t.db.kysely)).rows[0]?.n;
    const before = await live();
    const noticesBefore = await liveNotices();
    for (let i = 0; i < 2; i++) {
      const r = await runJob({ loaded: rail, db: t.db, log: silent, today });
      expect(r.status).toBe('succeeded');
      expect(r.relations.pins?.deleted ?? 0).toBe(0);
      const n = await runJob({ loaded: notices, db: t.db, log: silent, today });
      expect(n.status).toBe('succeeded');
      expect(n.relations.pins).toBeUndefined();
      expect(n.relations.notices?.deleted ?? 0).toBe(0);
    }
    expect(await live()).toBe(before);
    expect(await liveNotices()).toBe(noticesBefore);
    // The full job still sees and deletes in its own scope: a removed bus stop goes.
    const bus = sim.world.truth([...region], { types: ['STOP'], date: today }).stops.find((s) => s.motTypes.every((m) => m >= 5))!;
    sim.world.removePin(bus.id);
    const again = await runJob({ loaded: full, db: t.db, log: silent, today });
    expect(again.relations.pins).toMatchObject({ deleted: 1 });
    const stored = await dbComparable(t.db, 'vvs');
    const truth = truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
    expect({ pins: stored.pins, stops: stored.stops }).toEqual({ pins: truth.pins, stops: truth.stops });
  }, 300_000);
});
