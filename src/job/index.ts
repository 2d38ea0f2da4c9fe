export { defineJob } from './define-job.js';
export { loadJob, resolveJobFile, validateJob, type LoadedJob, type ResolvedRegion } from './load.js';
export * from './schema.js';
