import tzLookup from '@photostructure/tz-lookup';
import { regionBBox } from '../tiling/index.js';
import type { Job } from './schema.js';
import type { ResolvedRegion } from './load.js';

/** The zone a run reads zone-less times in, and where it came from (recorded with the run). */
export interface DeploymentTimeZone {
  readonly zone: string;
  readonly from: 'job' | 'region';
}

/**
 * A job's time zone: its `timeZone`, else the zone at the centre of its region's bbox (tz-lookup's
 * boundaries, which follow the IANA zones on land; at sea it answers an Etc/GMT±n zone). A region
 * that straddles a zone border gets the zone of its centre: such a job names its zone.
 */
export function deploymentTimeZone(job: Pick<Job, 'timeZone'>, region: ResolvedRegion): DeploymentTimeZone {
  if (job.timeZone !== undefined) return { zone: job.timeZone, from: 'job' };
  const [minLon, minLat, maxLon, maxLat] = regionBBox(region);
  return { zone: tzLookup((minLat + maxLat) / 2, (minLon + maxLon) / 2), from: 'region' };
}
