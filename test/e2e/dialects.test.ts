import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimDialect, type Simulator } from '../../src/sim/index.js';
import { readRunMeta } from '../../src/db/run-record.js';
import { runJob } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { dbComparable, truthComparable, type Comparable } from '../helpers/compare.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const today = '2026-11-22';
const region = [9.12, 48.73, 9.24, 48.81] as const;
const dialects: SimDialect[] = ['json', 'legacy', 'rapidjson', 'xml'];

describe('the same sweep in every dialect gives the same tables', () => {
  let t: TestDb;
  const sims = new Map<SimDialect, Simulator>();
  const tables = new Map<string, Comparable>();
  let truth: Comparable;
  beforeAll(async () => {
    t = await openTestDb();
    for (const d of dialects) sims.set(d, await startSimulator({ port: 0, seed: 13, size: 1500, today, dialect: d }));
    truth = truthComparable(sims.get('json')!.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
  });
  afterAll(async () => {
    await t?.dispose();
    for (const s of sims.values()) await s.stop();
  });

  const job = (dialect: SimDialect | 'auto', sim: Simulator) =>
    inlineJob({
      name: 'dialects',
      baseUrl: sim.url,
      dialect,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 300, concurrency: 6 },
      sweeps: {
        coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 },
        opArea: { mode: 'ALL', geometry: true },
        servingLines: { forStops: true, refreshEveryNights: 1 },
        addInfo: { publicationStatus: 'current' },
      },
    });

  for (const d of dialects) {
    it(`${d}: the tables equal the ground truth`, async () => {
      const sim = sims.get(d)!;
      const summary = await runJob({ loaded: job(d, sim), db: t.db, log: silent, today, full: true });
      expect(summary.status).toBe('succeeded');
      expect(summary.dialect).toBe(d);
      const stored = await dbComparable(t.db);
      tables.set(d, stored);
      expect(stored).toEqual(truth);
    }, 300_000);
  }

  it('json, legacy, rapidjson and xml tables are identical, row by row', () => {
    expect(tables.get('legacy')).toEqual(tables.get('json'));
    expect(tables.get('rapidjson')).toEqual(tables.get('json'));
    expect(tables.get('xml')).toEqual(tables.get('json'));
  });

  for (const d of dialects) {
    it(`auto detects ${d} from the first answer and records it`, async () => {
      const summary = await runJob({ loaded: job('auto', sims.get(d)!), db: t.db, log: silent, today });
      expect(summary.status).toBe('succeeded');
      expect(summary.dialect).toBe(d);
      const run = await t.db.kysely.selectFrom('efa.runs').select('meta').where('run_id', '=', summary.runId).executeTakeFirstOrThrow();
      expect(readRunMeta(run.meta)?.dialect).toBe(d);
      expect(await dbComparable(t.db)).toEqual(truth);
    }, 300_000);
  }
});
