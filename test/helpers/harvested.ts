import type { Db } from '../../src/db/index.js';
import type { ObjectType } from '../../src/efa/index.js';
import type { JobInput, LoadedJob } from '../../src/job/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { createLogger } from '../../src/util/log.js';
import { openTestDb, type TestDb } from './db.js';
import { inlineJob } from './job.js';

/**
 * "A harvested database": a simulated world, a fresh test database and the night(s) of a job over a
 * region of it. Most end-to-end tests start from this world and differ only in the world's seed and
 * size, the region and the sweeps, so those are the options; everything else is the usual night.
 */
export interface HarvestedDbOptions {
  /** The simulated world (other simulator options under `sim`). */
  readonly seed: number;
  readonly size: number;
  /** The world's today and the run date. */
  readonly today?: string;
  readonly region: readonly [number, number, number, number];
  /** The job's name, which is the rows' source. */
  readonly name?: string;
  /** The object types CoordInfo asks for. */
  readonly types: readonly ObjectType[];
  readonly maxPerRequest: number;
  /**
   * Sweeps over the default night (coord with `types` and `maxPerRequest`, OpArea ALL with geometry,
   * ServingLines for stops, current AddInfo notices): a key given here replaces that sweep.
   */
  readonly sweeps?: Partial<JobInput['sweeps']>;
  readonly rateLimit?: JobInput['rateLimit'];
  readonly sim?: Omit<SimulatorOptions, 'port' | 'seed' | 'size' | 'today'>;
  /** Nights run before the fixture is handed over; 0 leaves the database empty. */
  readonly nights?: number;
}

export interface HarvestedDb {
  readonly t: TestDb;
  readonly db: Db;
  readonly sim: Simulator;
  readonly job: LoadedJob;
  /** The last night run so far (by the fixture or by `night()`); undefined before the first. */
  readonly run: RunSummary | undefined;
  /** One more night of the job against the simulator as it is now (a test may have changed its world). */
  night(): Promise<RunSummary>;
  dispose(): Promise<void>;
}

const silent = createLogger({ level: 'error', format: 'json' });
export const HARVEST_TODAY = '2026-11-22';

export async function harvestedDb(o: HarvestedDbOptions): Promise<HarvestedDb> {
  const today = o.today ?? HARVEST_TODAY;
  const sim = await startSimulator({ ...o.sim, port: 0, seed: o.seed, size: o.size, today });
  let t: TestDb;
  try {
    t = await openTestDb();
  } catch (error) {
    await sim.stop();
    throw error;
  }
  const job = inlineJob({
    name: o.name ?? 'harvested',
    baseUrl: sim.url,
    region: { bbox: [...o.region] },
    rateLimit: o.rateLimit ?? { requestsPerSecond: 300, concurrency: 6 },
    sweeps: {
      coord: { types: [...o.types], maxPerRequest: o.maxPerRequest },
      opArea: { mode: 'ALL', geometry: true },
      servingLines: { forStops: true },
      addInfo: { publicationStatus: 'current' },
      ...o.sweeps,
    },
  });
  let run: RunSummary | undefined;
  const harvested: HarvestedDb = {
    t,
    db: t.db,
    sim,
    job,
    get run() {
      return run;
    },
    night: async () => (run = await runJob({ loaded: job, db: t.db, log: silent, today })),
    dispose: async () => {
      await t.dispose();
      await sim.stop();
    },
  };
  try {
    for (let n = 0; n < (o.nights ?? 1); n++) await harvested.night();
  } catch (error) {
    await harvested.dispose();
    throw error;
  }
  return harvested;
}
