/** One run of a job, whatever its kind: the lifecycle, its options and its summary. */
export { PROBE_OPERATION, runJob } from './lifecycle.js';
export type { LiveRun, RunJobOptions } from './kind.js';
export { stoppedRunSummary, type RunSummary } from './summary.js';
