import { ConfigError } from '../errors.js';
import type { Job } from './schema.js';

/**
 * The request headers of a job, values from the environment where the job names a variable
 * (`{ "env": "EFA_API_TOKEN" }`). A missing or empty variable is a configuration error naming it.
 */
export function resolveHeaders(job: Pick<Job, 'headers'>, env: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(job.headers ?? {})) {
    if (typeof value === 'string') {
      out[name] = value;
      continue;
    }
    const fromEnv = env[value.env];
    if (fromEnv === undefined || fromEnv === '') throw new ConfigError(`headers.${name}: environment variable ${value.env} is not set`, `headers.${name}`);
    out[name] = fromEnv;
  }
  return out;
}
