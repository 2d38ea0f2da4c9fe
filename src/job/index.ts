export { defineJob } from './define-job.js';
export { resolveHeaders } from './headers.js';
export { loadJob, regionOrderHint, resolveJobFile, validateJob, type JobOverrides, type LoadedJob, type ResolvedRegion } from './load.js';
export * from './schema.js';
