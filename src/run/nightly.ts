import { finishedUnits, recordTiles } from '../db/ledger.js';
import { pendingTiles } from '../db/plan-reads.js';
import { errorText } from '../errors.js';
import type { LoadedJob } from '../job/index.js';
import type { Outcome, RunContext, RunKind } from './kind.js';
import { seconds } from './summary.js';
import { createCapDetector, createSpatialCheck, createSplitMemory, regionBBox, type Tile } from '../tiling/index.js';
import { notSpatialNote } from '../sweep/index.js';
import { redactText } from '../util/redact.js';
import { sweepAddInfo } from '../sweep/nightly/add-info.js';
import { createBatchingWriter } from '../db/batching-writer.js';
import type { SweepContext } from '../sweep/nightly/context.js';
import { pendingRecord, sweepCoord } from '../sweep/nightly/coord.js';
import { nightlyEnd } from './finalise.js';
import { sweepOpArea } from '../sweep/nightly/op-area.js';
import { planCoordTiles } from '../sweep/nightly/plan.js';
import { pilotApplies, resumeCoordPilot, sweepCoordPilot } from '../sweep/nightly/pilot.js';
import { Progress } from '../sweep/nightly/progress.js';
import { sweepServingLines } from '../sweep/nightly/serving-lines.js';
import { RunStats } from '../sweep/nightly/stats.js';
import { sweepStopFinder } from '../sweep/nightly/stop-finder.js';

/**
 * The nightly kind of run: OpArea, CoordInfo, StopFinder, ServingLines and AddInfo in that order,
 * each unit committed with its progress record, so an interrupted night is resumed where it stopped
 * (the lifecycle, src/run/, decides that). Its end (deletions, counts) is finalise.ts.
 */
export const nightlyRun: RunKind = {
  resumable: true,
  execute: sweepNight,
};

async function sweepNight(rc: RunContext): Promise<Outcome> {
  const { db, log, job, run, resumed, full } = rc;
  const { scheduler } = rc.jobClient;
  const progressSource = { requests: () => scheduler.requestsSent, retries: () => scheduler.stats().retries, allowedRate: () => scheduler.requestsPerSecond };
  // A resumed run's plan is what is pending, not the whole night: the units known are its estimate.
  const progress = new Progress(log, progressSource, rc.options.progress ?? 'off', resumed ? {} : { plannedUnits: rc.planned });
  const finished = new Map<string, Set<string>>();
  if (resumed) for (const op of ['opArea', 'servingLines', 'addInfo', 'stopFinder']) finished.set(op, await finishedUnits(db.kysely, run.runId, op));
  const ctx: SweepContext = {
    db,
    run,
    job,
    region: rc.loaded.region,
    regionBBox: regionBBox(rc.loaded.region),
    client: rc.jobClient.client,
    log,
    stats: new RunStats(),
    progress,
    today: rc.options.today ?? new Date().toISOString().slice(0, 10),
    transact: createBatchingWriter(db, run),
    messages: new Map(),
    finished,
    full,
    capDetector: createCapDetector(),
    extendBudget: (n) => scheduler.extendBudget(n),
    secrets: rc.secrets,
    splitMemory: createSplitMemory(),
    spatialCheck: createSpatialCheck(),
  };

  let failure: unknown;
  progress.start();
  try {
    await sweepOpArea(ctx);
    if (job.sweeps.coord) await sweepCoordPhase(ctx, job.sweeps.coord, resumed, full);
    await sweepStopFinder(ctx);
    await sweepServingLines(ctx);
    await sweepAddInfo(ctx);
  } catch (error) {
    failure = error;
    // The CLI says it once, as the run's last word; here only for debugging.
    log.debug(`run ${run.runId} failed: ${redactText(errorText(error), rc.secrets)}`);
  } finally {
    progress.stop();
  }
  const sweepS = seconds(Date.now() - run.startedAt.getTime());
  const phases = { sweepS, loadS: seconds(ctx.transact.busyMs()) };
  return nightlyEnd(rc, ctx, failure, phases);
}

/** The CoordInfo phase, and once at its end what the run's spatial check stopped (every stratum's). */
async function sweepCoordPhase(ctx: SweepContext, cfg: NonNullable<LoadedJob['job']['sweeps']['coord']>, resumed: boolean, full: boolean): Promise<void> {
  try {
    await sweepCoordTiles(ctx, cfg, resumed, full);
  } finally {
    const notSpatial = notSpatialNote('coordInfo', ctx.spatialCheck, 'and nothing in them is marked gone');
    if (notSpatial !== undefined) {
      ctx.log.warn(`${notSpatial}. Is the base URL a real EFA deployment, and does it honour boundingBox?`);
      ctx.stats.notes.push(notSpatial);
    }
  }
}

async function sweepCoordTiles(ctx: SweepContext, cfg: NonNullable<LoadedJob['job']['sweeps']['coord']>, resumed: boolean, full: boolean): Promise<void> {
  const { db, run, log } = ctx;
  let tiles: Tile[];
  let known = 0;
  if (resumed) {
    tiles = await pendingTiles(db.kysely, run.runId);
  } else {
    const plan = await planCoordTiles(db.kysely, run.source, cfg, ctx.region, full);
    tiles = plan.tiles;
    known = plan.known;
    await ctx.transact((tx) => recordTiles(tx.kysely, run.runId, tiles.map(pendingRecord)));
  }
  log.info(`coordInfo: ${tiles.length} ${resumed ? 'pending tiles left' : known > 0 ? `tiles planned from ${known} known pins` : 'tile(s) to start from'}`);
  // The night-one pilot (sweeps.coord.pilot) only on a night planned without known pins, from its one root tile.
  if (pilotApplies(cfg)) {
    if (resumed && (await resumeCoordPilot(ctx, tiles))) return;
    const root = tiles[0];
    if (!resumed && known === 0 && tiles.length === 1 && root !== undefined) return sweepCoordPilot(ctx, root);
  }
  await sweepCoord(ctx, tiles);
}

