import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../util/package-root.js';
import { jobSchema, regionGeometrySchema, type BBox, type Job, type RegionGeometry } from './schema.js';

export type ResolvedRegion = { readonly bbox: BBox } | { readonly geojson: RegionGeometry };

/** A validated job, its source file, and the region geometry resolved (a path is read). */
export interface LoadedJob {
  readonly job: Job;
  readonly file: string;
  readonly region: ResolvedRegion;
  /** Hash of the validated job: a run can only be resumed by the same job. */
  readonly hash: string;
}

const extensions = ['.json', '.ts', '.js', '.mjs'];

/** `run <job>` takes a path, or a job name under ./jobs/ or under the package's own jobs/. */
export function resolveJobFile(arg: string, cwd = process.cwd()): string {
  const direct = isAbsolute(arg) ? arg : resolve(cwd, arg);
  if (existsSync(direct) && extensions.includes(extname(direct))) return direct;
  for (const dir of [join(cwd, 'jobs'), join(packageRoot, 'jobs')]) {
    for (const ext of extensions) {
      const candidate = join(dir, `${arg}${ext}`);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new ConfigError(`job "${arg}" not found: give a path to a .json/.ts/.js file or a job name under jobs/`, 'job');
}

export function formatZodIssues(prefix: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.');
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => (path ? `${path}.${k}` : k)) : [];
      if (keys.length > 0) return `${prefix}: unknown key ${keys.map((k) => `"${k}"`).join(', ')}`;
      return `${prefix}: ${path || '(root)'}: ${issue.message}`;
    })
    .join('\n');
}

function firstField(error: z.ZodError): string | undefined {
  const issue = error.issues[0];
  if (!issue) return undefined;
  if (issue.code === 'unrecognized_keys') return [...issue.path, issue.keys[0]].join('.');
  return issue.path.join('.');
}

async function readJobSource(file: string): Promise<unknown> {
  if (extname(file) === '.json') {
    const text = await readFile(file, 'utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`, 'job');
    }
  }
  // tsx compiles TS job modules on the fly, so users need no build step for their jobs.
  const { tsImport } = await import('tsx/esm/api');
  const mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { default?: unknown };
  // Outside an ESM package a .ts file is compiled as CommonJS and its default export arrives wrapped.
  const inner = mod.default as { default?: unknown; name?: unknown } | undefined;
  const job = inner && typeof inner === 'object' && 'default' in inner && !('name' in inner) ? inner.default : inner;
  if (job === undefined) throw new ConfigError(`${file}: a job module must default-export defineJob({...})`, 'job');
  return job;
}

async function resolveRegion(job: Job, file: string): Promise<ResolvedRegion> {
  if ('bbox' in job.region) return { bbox: job.region.bbox };
  const geojson = job.region.geojson;
  if (typeof geojson !== 'string') return { geojson };
  const path = resolve(dirname(file), geojson);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`region.geojson: cannot read ${path}: ${(e as Error).message}`, 'region.geojson');
  }
  // Accept a bare geometry, a Feature, or a FeatureCollection with exactly one feature.
  const obj = parsed as { type?: string; geometry?: unknown; features?: Array<{ geometry?: unknown }> };
  const geometry =
    obj.type === 'Feature' ? obj.geometry : obj.type === 'FeatureCollection' && obj.features?.length === 1 ? obj.features[0]?.geometry : parsed;
  const result = regionGeometrySchema.safeParse(geometry);
  if (!result.success) throw new ConfigError(formatZodIssues(`region.geojson (${path})`, result.error), 'region.geojson');
  return { geojson: result.data };
}

export function validateJob(input: unknown, source = 'job'): Job {
  const result = jobSchema.safeParse(input);
  if (!result.success) throw new ConfigError(formatZodIssues(source, result.error), firstField(result.error));
  return result.data;
}

export async function loadJob(arg: string, cwd = process.cwd()): Promise<LoadedJob> {
  const file = resolveJobFile(arg, cwd);
  const job = validateJob(await readJobSource(file), file);
  const region = await resolveRegion(job, file);
  const hash = createHash('sha256')
    .update(JSON.stringify({ region, sweeps: job.sweeps, baseUrl: job.baseUrl }))
    .digest('hex')
    .slice(0, 16);
  return { job, file, region, hash };
}
