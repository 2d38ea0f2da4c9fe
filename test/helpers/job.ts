import { validateJob, type JobInput, type LoadedJob } from '../../src/job/index.js';

/** A LoadedJob from an inline job, as loadJob would give it for a file. */
export function inlineJob(input: JobInput): LoadedJob {
  const job = validateJob(input, 'test job');
  const region = 'bbox' in job.region ? { bbox: job.region.bbox } : { geojson: job.region.geojson as Exclude<typeof job.region.geojson, string> };
  return { job, file: '(inline)', region, hash: `test-${job.name}` };
}
