import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { filterDeployments } from '../deployments/filter.js';
import { boxAround, initJob, resolvePlace, type InitRegion } from '../deployments/init-job.js';
import { findDeployment, loadDeployments } from '../deployments/load.js';
import { cronJobs, crontab, overfullSlots, staggerJobs, systemdUnits, type ScheduledJob } from '../deployments/schedule.js';
import type { Deployment } from '../deployments/schema.js';
import { bboxSchema } from '../job/schema.js';
import type { Job } from '../job/schema.js';
import { addCommonOptions, type CommonOptions } from './common.js';
import { planNight } from './plan.js';

interface InitOptions extends CommonOptions {
  out?: string;
  dir: string;
  force?: boolean;
  bbox?: string;
  around?: string;
  radius?: string;
  whole?: boolean;
  country?: string;
}

/** What `plan` would say of a job: tiles, requests, and hours at the job's own (polite) rate. */
export function planSummary(job: Job, region: InitRegion): { tiles: number; requests: number; hours: number } {
  const plan = planNight(job, region, undefined);
  return { tiles: plan.coordTiles.length, requests: plan.budget.total, hours: plan.budget.total / job.rateLimit.requestsPerSecond / 3600 };
}

function parseBBox(text: string): [number, number, number, number] {
  const parts = text.split(',').map((p) => Number(p.trim()));
  const result = bboxSchema.safeParse(parts);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n)) || !result.success) {
    throw new ConfigError(`--bbox: expected <minLon>,<minLat>,<maxLon>,<maxLat> (longitude first), got "${text}"`, '--bbox');
  }
  return result.data;
}

async function regionOf(entry: Deployment, opts: InitOptions): Promise<{ region: InitRegion; said: string }> {
  const given = [opts.bbox !== undefined, opts.around !== undefined, opts.whole === true].filter(Boolean).length;
  if (given !== 1) throw new ConfigError('init: give the region with one of --bbox <w,s,e,n>, --around <place> --radius <km>, or --whole', '--bbox');
  if (opts.bbox !== undefined) return { region: { bbox: parseBBox(opts.bbox) }, said: `the box ${opts.bbox}` };
  if (opts.whole) return { region: { geojson: entry.coverage }, said: `the whole coverage of ${entry.id}` };
  const radius = Number(opts.radius ?? '5');
  if (!Number.isFinite(radius) || radius <= 0 || radius > 500) throw new ConfigError(`--radius: expected kilometres from 0 to 500, got "${opts.radius ?? ''}"`, '--radius');
  const baseUrl = opts.baseUrl !== undefined && opts.baseUrl !== '' ? opts.baseUrl : entry.baseUrl;
  const place = await resolvePlace(entry, opts.around ?? '', baseUrl);
  return { region: { bbox: boxAround(place.point, radius) }, said: `${radius} km around ${place.name} (${place.point[0].toFixed(5)}, ${place.point[1].toFixed(5)}), found by ${baseUrl}` };
}

async function writeNew(path: string, text: string, force: boolean): Promise<void> {
  if (existsSync(path) && !force) throw new ConfigError(`${path} exists: init never overwrites a file; give --force to replace it, or --out another path`, '--out');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

const hoursText = (h: number): string => (h < 1 ? `${Math.max(1, Math.round(h * 60))} min` : `${h.toFixed(1)} h`);

async function initOne(entry: Deployment, opts: InitOptions): Promise<ScheduledJob & { said: string; tiles: number; requests: number; text: string }> {
  const { region, said } = await regionOf(entry, opts);
  const file = resolve(opts.out ?? join(opts.dir, `${entry.id}.json`));
  const { input, job } = initJob(entry, region, file);
  const summary = planSummary(job, region);
  const text = `${JSON.stringify(input, null, 2)}\n`;
  await writeNew(file, text, opts.force === true);
  return { id: entry.id, jobFile: relative(process.cwd(), file).split('\\').join('/'), baseUrl: entry.baseUrl, said, text, ...summary };
}

export function registerInit(program: Command): void {
  const cmd = program
    .command('init [ids...]')
    .description('write a job for a catalogue deployment (efa-sync deployments), and say what plan would: tiles, requests, hours at its polite rate')
    .option('--bbox <w,s,e,n>', 'the region as a box, longitude first')
    .option('--around <place>', "the region around a place, found by the deployment's own StopFinder (one request)")
    .option('--radius <km>', 'with --around: the half-width of the box in km (default 5)')
    .option('--whole', "the region is the deployment's whole coverage polygon")
    .option('--country <code>', 'a job for every deployment of a country (DE, DE-BW), with scheduler files; the region defaults to --whole')
    .option('--out <file>', 'the job file (one deployment; default jobs/<id>.json)')
    .option('--dir <dir>', 'the folder of the job files', 'jobs')
    .option('--force', 'replace files that exist');
  addCommonOptions(cmd, ['baseUrl', 'json']).action(async (ids: string[], opts: InitOptions) => {
    const entries = opts.country !== undefined ? filterDeployments(loadDeployments(), { country: opts.country }).map((m) => m.entry) : ids.map((id) => findDeployment(id));
    if (opts.country !== undefined && ids.length > 0) throw new ConfigError('init: give deployment ids or --country, not both', '--country');
    if (entries.length === 0) throw new ConfigError(opts.country !== undefined ? `--country ${opts.country}: no deployment in the catalogue` : 'init: name a deployment (efa-sync deployments lists them) or --country', 'deployment');
    if (entries.length > 1 && opts.out !== undefined) throw new ConfigError('--out names one file: with several deployments use --dir', '--out');
    const many = entries.length > 1 || opts.country !== undefined;
    const regionOpts = many && opts.bbox === undefined && opts.around === undefined ? { ...opts, whole: true } : opts;
    const written = [];
    for (const entry of entries) written.push(await initOne(entry, regionOpts));
    const out: string[] = [];
    for (const w of written) {
      out.push(`wrote ${w.jobFile}: ${w.id}, ${w.said}`);
      out.push(
        `  plan: ${w.tiles} tile${w.tiles === 1 ? '' : 's'} to start, at least ${w.requests.toLocaleString('en')} request${w.requests === 1 ? '' : 's'}, at least ${hoursText(w.hours)} at ${findDeployment(w.id).rateLimit.requestsPerSecond} requests/s ` +
          `(capped tiles split as their answers show; efa-sync plan ${w.jobFile} --probe estimates the whole night from a few requests)`,
      );
    }
    let scheduleFiles: string[] = [];
    if (many) {
      const slots = staggerJobs(written);
      const dir = resolve(opts.dir, 'schedule');
      const files: Record<string, string> = { crontab: crontab(slots), 'cronjobs.yaml': cronJobs(slots, Object.fromEntries(written.map((w) => [w.id, w.text]))), ...Object.fromEntries(Object.entries(systemdUnits(slots)).map(([n, t]) => [`systemd/${n}`, t])) };
      for (const [name, text] of Object.entries(files)) await writeNew(join(dir, name), text, opts.force === true);
      scheduleFiles = Object.keys(files).map((n) => relative(process.cwd(), join(dir, n)));
      out.push(`wrote the schedule to ${relative(process.cwd(), dir) || '.'}/: crontab, cronjobs.yaml (Kubernetes), systemd/ (${slots.length} services and timers); the jobs of one upstream share its day`);
      for (const s of overfullSlots(slots)) out.push(`warning: ${s.id} is planned at ${hoursText(s.plannedMinutes / 60)}, more than its ${hoursText(s.slotMinutes / 60)} share of ${s.host}'s day: shrink its region`);
    } else {
      out.push(`next: efa-sync run ${written[0]?.jobFile ?? ''}   (efa-sync plan ${written[0]?.jobFile ?? ''} shows the tiles)`);
    }
    if (opts.json) process.stdout.write(`${JSON.stringify({ jobs: written.map(({ text: _text, ...w }) => w), schedule: scheduleFiles })}\n`);
    else process.stdout.write(`${out.join('\n')}\n`);
  });
}
