import { validateJob, type JobInput, type LoadedJob } from '../../src/job/index.js';

/** A LoadedJob from an inline job, as loadJob would give it for a file. */
export function inlineJob(input: JobInput): LoadedJob {
  const job = validateJob(input, 'test job');
  const region = 'bbox' in job.region ? { bbox: job.region.bbox } : { geojson: job.region.geojson as Exclude<typeof job.region.geojson, string> };
  return { job, file: '(inline)', region, hash: `test-${job.name}` };
}

/**
 * A night of every operation over a small region (CoordInfo, OpArea, ServingLines, AddInfo): what the
 * upgrade tests fill a warehouse of an older schema with before migrating it.
 */
export function everyOperationNight(name: string, baseUrl: string, bbox: readonly [number, number, number, number]): LoadedJob {
  return inlineJob({
    name,
    baseUrl,
    region: { bbox: [...bbox] },
    rateLimit: { requestsPerSecond: 300, concurrency: 4 },
    sweeps: {
      coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 },
      opArea: { mode: 'ALL', geometry: true },
      servingLines: { forStops: true, refreshEveryNights: 1 },
      addInfo: { publicationStatus: 'current' },
    },
  });
}
