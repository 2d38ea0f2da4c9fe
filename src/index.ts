/**
 * The public API of the package `efa-sync`: what a job file or a program may import.
 *
 *   import { defineJob } from 'efa-sync';
 *   export default defineJob({ name: 'my-city', baseUrl: 'https://…', region: { bbox: [...] }, … });
 *
 * Everything else under dist/ is internal and may change between releases.
 */
export { defineJob } from './job/define-job.js';
export { jobSchema, type Job, type JobInput, type BBox, type RegionGeometry } from './job/schema.js';
export { loadJob, validateJob, type LoadedJob, type ResolvedRegion } from './job/load.js';
export { probeUpstream, assertUpstreamUsable, UpstreamConfigError, type ProbeCheck, type ProbeOptions, type ProbeResult } from './run/probe.js';
export { CONFIGURATION_OUTCOMES, type ProbeOutcome } from './run/probe-outcome.js';
export { DIALECT_NAMES, type DialectName } from './efa/dialects/index.js';
export { ConfigError, ExitCode } from './errors.js';
