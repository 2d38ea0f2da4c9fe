import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { createFetchTransport } from '../../src/http/index.js';
import type { Transport } from '../../src/http/types.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import type { TestDb } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

export const today = '2026-11-22';
/** Inside the generated world, so tiles split around real stops and areas cross its edges. */
export const region = [9.1, 48.72, 9.26, 48.82] as const;
/** The point whose CoordInfo tiles fail forever (the simulator's failbox fault). */
export const failPoint = { lon: 9.17, lat: 48.77 } as const;

export interface Sims {
  /** Serves the job; its URL is the job's baseUrl. */
  readonly clean: Simulator;
  /** The same world with `failbox` at failPoint. */
  readonly faulty: Simulator;
  stop(): Promise<void>;
}

export async function startSims(): Promise<Sims> {
  const world = { port: 0, seed: 7, size: 2500, today } as const;
  const clean = await startSimulator(world);
  const faulty = await startSimulator({ ...world, faults: `failbox=${failPoint.lon}:${failPoint.lat}` });
  return { clean, faulty, stop: async () => (await clean.stop(), await faulty.stop()) };
}

/**
 * A failbox fails every box holding the point, the whole-region first tile too, which would fail
 * the run's only root tile. To get a leaf that fails among tiles that split, CoordInfo boxes
 * narrower than `narrowShare` of the region (a third) go to the faulty simulator (same world), the rest to the clean one.
 */
function leafFaultTransport(sims: Sims, narrowShare = 1 / 3): Transport {
  const inner = createFetchTransport();
  const narrow = (region[2] - region[0]) * narrowShare;
  return {
    send: (request) => {
      const lu = request.url.searchParams.get('boundingBoxLU'), rl = request.url.searchParams.get('boundingBoxRL');
      const width = lu && rl ? Number(rl.split(':')[0]) - Number(lu.split(':')[0]) : Infinity;
      if (!(width < narrow)) return inner.send(request);
      const url = new URL(request.url);
      url.port = String(sims.faulty.port);
      return inner.send({ ...request, url });
    },
  };
}

/**
 * A run with a small cap (tiles split, the densest end capped), one failing leaf, OpArea ALL with geometry, lines and notices.
 * `pilot`: night one by a pilot instead, in two strata (PARKING+STOP split from the region box, POI_POINT planned from
 * the parking pins): with a cap of 100 the root's answer holds enough of each type for the pilot's verdict, parking
 * is the pilot type, and boxes narrower than 0.6 of the region fail at failPoint, so that the split stratum (whose
 * leaves are half the region wide) has a failing leaf as well as the planned one.
 */
export function runFaultyJob(sims: Sims, t: TestDb, name = 'report', opts: { servingLines?: boolean; pilot?: boolean } = {}): Promise<RunSummary> {
  const loaded = inlineJob({
    name,
    baseUrl: sims.clean.url,
    region: { bbox: [...region] },
    rateLimit: { requestsPerSecond: 200, concurrency: 6, retries: 1, timeoutMs: 5000 },
    sweeps: {
      // Dense tiles reach this size before they hold fewer than 60 pins: some end capped.
      coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: opts.pilot ? 100 : 60, minTileSizeDeg: 0.03, ...(opts.pilot ? { parking: {} } : {}) },
      opArea: { mode: 'ALL', geometry: true },
      ...(opts.servingLines === false ? {} : { servingLines: { forStops: true } }),
      addInfo: { publicationStatus: 'current' },
    },
  });
  const log = createLogger({ level: 'error', format: 'json' });
  return runJob({ loaded, db: t.db, log, today, transport: leafFaultTransport(sims, opts.pilot ? 0.6 : undefined) });
}
