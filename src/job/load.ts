import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { withDeploymentKeys } from '../deployments/job-keys.js';
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

/** Job files that are code: they run with the user's rights, so only a path the user wrote loads one. */
const codeExtensions = ['.ts', '.js', '.mjs', '.cjs'];
const extensions = ['.json', ...codeExtensions];

/**
 * `run <job>` takes a path, or a job name under ./jobs/ or under the package's own jobs/. A bare
 * name (no slash, no extension) finds only a .json file: a code file is never run because a
 * directory the command happens to start in holds jobs/<name>.mjs. Code needs its path
 * (./jobs/x.ts, x.mjs).
 */
export function resolveJobFile(arg: string, cwd = process.cwd()): string {
  const direct = isAbsolute(arg) ? arg : resolve(cwd, arg);
  const bareName = !arg.includes('/') && !arg.includes(sep) && extname(arg) === '';
  if (!bareName) {
    if (existsSync(direct) && extensions.includes(extname(direct))) return direct;
    throw new ConfigError(`job "${arg}" not found: give a path to an existing .json/.ts/.js/.mjs/.cjs file, or a bare job name under jobs/`, 'job');
  }
  const dirs = [join(cwd, 'jobs'), join(packageRoot, 'jobs')];
  for (const dir of dirs) {
    const candidate = join(dir, `${arg}.json`);
    if (existsSync(candidate)) return candidate;
  }
  const code = dirs.flatMap((dir) => codeExtensions.map((ext) => join(dir, `${arg}${ext}`))).find((f) => existsSync(f));
  if (code !== undefined) {
    throw new ConfigError(
      `job "${arg}": ${code} is code, and a bare job name loads only a .json job: give its path (e.g. ./${relative(cwd, code) || code}) to run it`,
      'job',
    );
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

/**
 * Where JSON.parse gave up, as "line L, column C", found by scanning the text ourselves: V8's own
 * message quotes the text around the error ("Unexpected token 'r', "root:x:0:0"..."), and an error
 * message must never carry bytes of a file (it may not be the file the user meant to name).
 */
export function jsonErrorLocation(text: string): string {
  const offset = firstJsonErrorOffset(text);
  if (offset >= text.length) return 'at the end (the text is cut short)';
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `at line ${line}, column ${column}`;
}

/** Offset of the first character a JSON parser would reject (text.length when the text ends too early). */
function firstJsonErrorOffset(text: string): number {
  let at = 0;
  const ws = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  const fail = (): never => {
    throw at;
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[at] !== ch) fail();
      at += 1;
    }
  };
  const string = (): void => {
    at += 1; // opening quote
    while (at < text.length) {
      const ch = text[at] ?? '';
      if (ch === '"') {
        at += 1;
        return;
      }
      if (ch < ' ') fail();
      if (ch === '\\') {
        at += 1;
        const esc = text[at] ?? '';
        if (esc === 'u') {
          for (let i = 1; i <= 4; i += 1) if (!/[0-9a-fA-F]/.test(text[at + i] ?? '')) fail();
          at += 4;
        } else if (!'"\\/bfnrt'.includes(esc) || esc === '') fail();
      }
      at += 1;
    }
    fail();
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (match === null || match[0] === '' || match[0] === '-') fail();
    at += match?.[0].length ?? 0;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail();
    ws();
    const ch = text[at];
    if (ch === '{') {
      at += 1;
      ws();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail();
        string();
        ws();
        if (text[at] !== ':') fail();
        at += 1;
        value(depth + 1);
        ws();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return;
        } else fail();
      }
    }
    if (ch === '[') {
      at += 1;
      ws();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return;
        } else fail();
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return literal('true');
    if (ch === 'f') return literal('false');
    if (ch === 'n') return literal('null');
    number();
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) at = 1;
    value(0);
    ws();
    return at < text.length ? at : text.length;
  } catch (offset) {
    return typeof offset === 'number' ? Math.min(offset, text.length) : 0;
  }
}

/** JSON from a file the user named; a parse error says where, never what the file holds. */
function parseJsonFile(text: string, what: string, field: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ConfigError(`${what}: not valid JSON ${jsonErrorLocation(text)}`, field);
  }
}

async function readJobSource(file: string): Promise<unknown> {
  if (extname(file) === '.json') return parseJsonFile(await readFile(file, 'utf8'), file, 'job');
  // tsx compiles TS job modules on the fly, so users need no build step for their jobs.
  const { tsImport } = await import('tsx/esm/api');
  const mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { default?: unknown };
  // Outside an ESM package a .ts file is compiled as CommonJS and its default export arrives wrapped.
  const inner = mod.default as { default?: unknown; name?: unknown } | undefined;
  const job = inner && typeof inner === 'object' && 'default' in inner && !('name' in inner) ? inner.default : inner;
  if (job === undefined) throw new ConfigError(`${file}: a job module must default-export defineJob({...})`, 'job');
  return job;
}

/** A region file larger than this is refused unread: no real boundary needs it, and /dev/zero must not fill memory. */
const MAX_REGION_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The path of a GeoJSON region file. A relative path resolves inside the job file's directory and
 * may not climb out of it (`../../etc/passwd`): a job handed over by someone else must not make the
 * harvester read, and quote, files elsewhere. An absolute path is the user's explicit choice.
 */
export function regionFilePath(jobFile: string, path: string): string {
  if (isAbsolute(path)) return path;
  const dir = dirname(resolve(jobFile));
  const resolved = resolve(dir, path);
  const inside = relative(dir, resolved);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new ConfigError(
      `region.geojson: "${path}" leaves the job file's directory; give a path inside ${dir}, or an absolute path`,
      'region.geojson',
    );
  }
  return resolved;
}

async function readRegionFile(path: string): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new ConfigError(`region.geojson: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 'region.geojson');
  }
  if (!info.isFile()) throw new ConfigError(`region.geojson: ${path} is not a regular file`, 'region.geojson');
  if (info.size > MAX_REGION_FILE_BYTES) {
    throw new ConfigError(`region.geojson: ${path} is ${info.size} bytes, more than the ${MAX_REGION_FILE_BYTES} accepted`, 'region.geojson');
  }
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`region.geojson: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 'region.geojson');
  }
}

async function resolveRegion(job: Job, file: string): Promise<ResolvedRegion> {
  if ('bbox' in job.region) return { bbox: job.region.bbox };
  const geojson = job.region.geojson;
  if (typeof geojson !== 'string') return { geojson };
  const path = regionFilePath(file, geojson);
  const parsed = parseJsonFile(await readRegionFile(path), `region.geojson (${path})`, 'region.geojson');
  // Accept a bare geometry, a Feature, or a FeatureCollection with exactly one feature.
  const obj = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    type?: string;
    geometry?: unknown;
    features?: Array<{ geometry?: unknown }>;
  };
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

/** What the command line or the environment supplies for a job that may leave it out. */
export interface JobOverrides {
  /** `--base-url` / `$EFA_BASE_URL`: a job without `baseUrl` takes it (Compose, Kubernetes set it per deployment). */
  readonly baseUrl?: string | undefined;
}

/** A job without baseUrl takes the one the command line or the environment gives; with neither, the error says where to set it. */
function withBaseUrl(source: unknown, file: string, overrides: JobOverrides): unknown {
  if (typeof source !== 'object' || source === null || Array.isArray(source) || 'baseUrl' in source) return source;
  if (overrides.baseUrl === undefined || overrides.baseUrl === '') {
    throw new ConfigError(`${file}: baseUrl: not set: give it in the job, or with --base-url or $EFA_BASE_URL`, 'baseUrl');
  }
  return { ...source, baseUrl: overrides.baseUrl };
}

export async function loadJob(arg: string, cwd = process.cwd(), overrides: JobOverrides = {}): Promise<LoadedJob> {
  const file = resolveJobFile(arg, cwd);
  // A job naming a catalogue entry takes its keys first (the job's own keys win), then the command line's base URL.
  const job = validateJob(withBaseUrl(withDeploymentKeys(await readJobSource(file)), file, overrides), file);
  const region = await resolveRegion(job, file);
  const hash = createHash('sha256')
    .update(JSON.stringify({ region, sweeps: job.sweeps, baseUrl: job.baseUrl }))
    .digest('hex')
    .slice(0, 16);
  return { job, file, region, hash };
}

/**
 * What to tell an operator whose region held no object at all: the order a bbox is read in, and the
 * same box with its pairs swapped when that is a valid box too (a [lat, lon, lat, lon] box over
 * Europe is a valid box in the Indian Ocean or the Horn of Africa, so only the answer can show it).
 */
export function regionOrderHint(region: ResolvedRegion): string {
  if (!('bbox' in region)) return 'region.geojson: GeoJSON positions are [lon, lat], longitude first';
  const [minLon, minLat, maxLon, maxLat] = region.bbox;
  const read = `region.bbox is read as [minLon, minLat, maxLon, maxLat]: longitude ${minLon} to ${maxLon}, latitude ${minLat} to ${maxLat}`;
  const swappable = Math.abs(minLat) <= 180 && Math.abs(maxLat) <= 180 && Math.abs(minLon) <= 90 && Math.abs(maxLon) <= 90;
  return swappable ? `${read}; if you wrote [lat, lon, …], the box is [${minLat}, ${minLon}, ${maxLat}, ${maxLon}]` : read;
}
