import { relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { createEfaClient } from '../efa/client.js';
import { dialectFor } from '../efa/dialects/index.js';
import { createFetchTransport, createRequestScheduler } from '../http/index.js';
import { resolveHeaders } from '../job/headers.js';
import { validateJob } from '../job/load.js';
import type { Job, JobInput } from '../job/schema.js';
import { packageRoot } from '../util/package-root.js';
import { deploymentJobKeys } from './job-keys.js';
import type { LonLat } from './geo.js';
import type { Deployment } from './schema.js';

/** The region `init` writes: a box, or the entry's whole coverage. */
export type InitRegion = { readonly bbox: [number, number, number, number] } | { readonly geojson: Deployment['coverage'] };

/** A box of `radiusKm` around a point, rounded outwards to 1e-4° (about 10 m), longitude first. */
export function boxAround([lon, lat]: LonLat, radiusKm: number): [number, number, number, number] {
  const dLat = radiusKm / 111.32;
  const dLon = radiusKm / (111.32 * Math.max(0.01, Math.cos((lat * Math.PI) / 180)));
  const down = (v: number): number => Math.floor(v * 1e4) / 1e4;
  const up = (v: number): number => Math.ceil(v * 1e4) / 1e4;
  return [down(Math.max(-180, lon - dLon)), down(Math.max(-90, lat - dLat)), up(Math.min(180, lon + dLon)), up(Math.min(90, lat + dLat))];
}

/**
 * The job `init` writes for an entry: the entry's keys spelt out (so the file runs unchanged, and
 * reads without the catalogue), `deployment` kept so doctor can compare, and the sweeps every EFA
 * answers: stops and POIs by CoordInfo, notices where the entry knows AddInfo answers.
 */
export function initJobInput(entry: Deployment, region: InitRegion, jobFile: string): JobInput {
  const schema = relative(`${jobFile}/..`, `${packageRoot}/schema/job.schema.json`).split('\\').join('/');
  return {
    $schema: schema,
    name: entry.id,
    deployment: entry.id,
    description: `${entry.name}: written by efa-sync init from the deployment catalogue (efa-sync deployments show ${entry.id}).`,
    ...(deploymentJobKeys(entry) as Pick<JobInput, 'baseUrl' | 'rateLimit'>),
    region,
    sweeps: {
      coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 500 },
      ...(entry.operations.addInfo ? { addInfo: { publicationStatus: 'current' } } : {}),
    },
  };
}

export function initJob(entry: Deployment, region: InitRegion, jobFile: string): { readonly input: JobInput; readonly job: Job } {
  const input = initJobInput(entry, region, jobFile);
  return { input, job: validateJob(input, `init ${entry.id}`) };
}

/**
 * Where `--around <place>` is: the best match of the deployment's own StopFinder (the one request
 * `init` sends), asked at `baseUrl` (the entry's, or --base-url's).
 */
export async function resolvePlace(entry: Deployment, place: string, baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<{ readonly name: string; readonly point: LonLat }> {
  const headers = resolveHeaders({ headers: entry.headers }, env);
  const client = createEfaClient({
    baseUrl,
    transport: createFetchTransport(),
    scheduler: createRequestScheduler({ requestsPerSecond: entry.rateLimit.requestsPerSecond, concurrency: 1, retries: 2, timeoutMs: 20_000 }),
    dialect: dialectFor(entry.dialect),
    headers,
    ...(entry.paths ? { paths: entry.paths } : {}),
    secretNames: Object.keys(headers),
    timeZone: entry.timeZone,
  });
  const answer = await client.stopFinder({ type: 'any', name: place, anyMaxSizeHitList: 10 });
  const located = answer.records.filter((r) => r.coord !== undefined);
  const best = located.find((r) => r.isBest) ?? located.sort((a, b) => b.matchQuality - a.matchQuality)[0];
  if (!best?.coord) throw new ConfigError(`--around "${place}": ${entry.id}'s StopFinder at ${baseUrl} found no place with a position by that name`, '--around');
  return { name: best.name, point: [best.coord.lon, best.coord.lat] };
}
