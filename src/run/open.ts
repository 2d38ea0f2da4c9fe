import type { Db } from '../db/connect.js';
import { abandonRun, createRun, findUnfinishedRun, takeOverRun, type OpenedRun } from '../db/runs.js';
import { runScope } from '../relations/index.js';
import type { Job, LoadedJob } from '../job/index.js';
import type { Logger } from '../util/log.js';
import { redactDeep } from '../util/redact.js';

/**
 * A crashed run of the same job is resumed when the job is unchanged and the kind resumes (taking
 * over its lease, so a process that lost its lock but still works on it commits nothing more);
 * otherwise it is closed and a fresh run starts, with its scope recorded before anything is swept.
 * Called under the job's lock.
 */
export async function openRun(o: {
  readonly db: Db;
  readonly log: Logger;
  readonly loaded: LoadedJob;
  readonly job: Job;
  /** `--full`: an interrupted run is closed, not continued. */
  readonly full: boolean;
  /** False for a kind that is never continued (a snapshot is a moment). */
  readonly resumable: boolean;
  readonly secrets: readonly string[];
  /** The IANA zone the run reads zone-less times in: recorded in efa.runs.time_zone (a resumed run keeps its own). */
  readonly timeZone: string;
  /** RunJobOptions.waitingSinceMs: a fresh run's started_at is set back to it. */
  readonly waitingSinceMs?: number | undefined;
}): Promise<{ run: OpenedRun; resumed: boolean }> {
  const { db, log, job } = o;
  const unfinished = await findUnfinishedRun(db.kysely, job.name);
  if (unfinished && unfinished.jobHash === o.loaded.hash && o.resumable && !o.full) {
    log.info(`resuming run ${unfinished.runId} of job ${job.name} (started ${unfinished.startedAt.toISOString()}, ${unfinished.status === 'stopped' ? 'stopped by a signal' : 'interrupted'})`);
    return { run: await takeOverRun(db.kysely, unfinished.runId, unfinished.source), resumed: true };
  }
  if (unfinished) {
    const why = o.full ? '--full was given' : !o.resumable ? 'a snapshot is not resumed' : 'the job changed since it started';
    // A crashed run's request count was never written (it is recorded at the run's end or stop).
    const how = unfinished.status === 'stopped' ? `stopped by a signal after ${unfinished.requests} requests` : 'interrupted';
    const was = `run ${unfinished.runId} of job ${job.name} (${how})`;
    // --full is a choice, not a fault: say what it does with the run it could have resumed.
    if (o.full && o.resumable && unfinished.jobHash === o.loaded.hash) {
      log.warn(`--full: not resuming ${was}; it is closed as failed and a fresh full run starts (without --full the next run would resume it)`);
    } else {
      log.warn(`${was} is not resumed (${why}); it is closed as failed and a fresh run starts`);
    }
    await abandonRun(db.kysely, unfinished.runId, why, unfinished.status);
  }
  // The job as run, with every credential removed: efa.runs is read by analysts.
  const options = redactDeep({ ...job, file: o.loaded.file }, o.secrets);
  const startedSecondsAgo = o.waitingSinceMs === undefined ? undefined : Math.max(0, performance.now() - o.waitingSinceMs) / 1000;
  const run = await createRun(db.kysely, {
    jobName: job.name, jobHash: o.loaded.hash, scope: runScope(job, o.loaded.region), options, timeZone: o.timeZone,
    ...(startedSecondsAgo === undefined ? {} : { startedSecondsAgo }),
  });
  return { run, resumed: false };
}
