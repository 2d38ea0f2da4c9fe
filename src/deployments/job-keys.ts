import { findDeployment } from './load.js';
import type { Deployment } from './schema.js';

/** The job keys a catalogue entry supplies: what a job naming `"deployment": "<id>"` need not repeat. */
export function deploymentJobKeys(entry: Deployment): Record<string, unknown> {
  return {
    source: entry.id,
    baseUrl: entry.baseUrl,
    dialect: entry.dialect,
    timeZone: entry.timeZone,
    rateLimit: { ...entry.rateLimit },
    ...(entry.paths ? { paths: { ...entry.paths } } : {}),
    ...(entry.headers ? { headers: { ...entry.headers } } : {}),
  };
}

/**
 * A job file as read, with its `deployment`'s keys filled in beneath it: every key the job states wins,
 * and `rateLimit` is merged key by key (a job that sets only `concurrency` keeps the polite rate).
 * Anything that is not an object naming a deployment is returned as it came, for the schema to judge.
 */
export function withDeploymentKeys(source: unknown): unknown {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return source;
  const job = source as Record<string, unknown>;
  if (typeof job['deployment'] !== 'string') return source;
  const keys = deploymentJobKeys(findDeployment(job['deployment']));
  const rateLimit = typeof job['rateLimit'] === 'object' && job['rateLimit'] !== null ? { ...(keys['rateLimit'] as object), ...job['rateLimit'] } : keys['rateLimit'];
  return { ...keys, ...job, rateLimit };
}
