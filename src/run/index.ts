/** One run of a job, whatever its kind: the lifecycle, its options and its summary. */
export { PROBE_OPERATION, runJob } from './lifecycle.js';
export type { RunJobOptions } from './kind.js';
export type { RunSummary } from './summary.js';
