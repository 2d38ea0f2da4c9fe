import type { JobInput } from './schema.js';

/** Typed identity for TS job modules: `export default defineJob({...})`. Validation happens at load. */
export function defineJob(job: JobInput): JobInput {
  return job;
}
