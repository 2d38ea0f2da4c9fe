import { Option, type Command } from 'commander';
import { sql } from 'kysely';
import { openDb, redactUrl, type Db } from '../db/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import { loadJob } from '../job/index.js';
import { countDueStops } from '../db/plan-reads.js';
import { nightNumber } from '../db/runs.js';
import { sourceOf, sweptPinTypes } from '../relations/index.js';
import { planCoordTiles, planRun, type RunPlan } from '../sweep/nightly/plan.js';
import { regionBBox, type Tile } from '../tiling/index.js';
import { formatTable } from '../util/table.js';
import { ConfigError } from '../errors.js';
import { addCommonOptions, dbOption, loggerFor, type CommonOptions } from './common.js';
import { whenDatabaseLost } from './database.js';
import { estimateNight, estimateText, probeRegion, type EarlierNights, type NightEstimate } from './plan-probe.js';

/** What a database knows that shapes the next night of a job. */
export interface NightKnowledge {
  /** CoordInfo tiles planned from the known pins (absent when none are known). */
  readonly coordTiles?: Tile[];
  /** Known pins of the swept types inside the region's envelope. */
  readonly knownPins: number;
  /** Known stops inside the region's envelope. */
  readonly knownStops: number;
  /** The night the next run is (how many runs of the job there were before it). */
  readonly night: number;
  /** Requests and durations of the job's last finished runs, where there are any. */
  readonly earlierNights?: EarlierNights;
  /**
   * Stops whose lines the next run fetches at least: those never fetched for this job and the
   * night's rolling share (all of them with refreshEveryNights 1). Stops that change tonight come on top.
   */
  readonly servingLinesStops: number;
}

/** The plan with night two modelled: ServingLines for the due stops only, StopFinder as its own operation. */
export interface NightPlan extends RunPlan {
  readonly budget: RunPlan['budget'] & { readonly requests: RunPlan['budget']['requests'] & { readonly stopFinder: number } };
}

/** Probe requests `--probe` sends when it is given without a number. */
export const DEFAULT_PROBES = 64;

interface PlanOptions extends CommonOptions {
  probe?: number | true;
}

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan <job>')
    .description('show the tiles and the request budget of a run; with --probe, estimate the night from a few sample requests')
    .addOption(dbOption('plan the next night from what this database knows (postgres://… or pglite:<dir>); without it, the first night'))
    .addOption(
      new Option(
        '--probe [n]',
        `send n CoordInfo requests (default ${DEFAULT_PROBES}) over sample boxes of the region, at the job's rate limit, and estimate the night's requests and duration as a range`,
      ).argParser(probeCount),
    );
  addCommonOptions(cmd, ['baseUrl', 'json', 'log']).action(async (jobArg: string, opts: PlanOptions) => {
    const file = await loadJob(jobArg, process.cwd(), { baseUrl: opts.baseUrl });
    // --base-url wins over the job's baseUrl, as it does for `run`.
    const loaded = opts.baseUrl === undefined ? file : { ...file, job: { ...file.job, baseUrl: opts.baseUrl } };
    loggerFor(opts).info(`job ${loaded.job.name} loaded from ${loaded.file}`);
    const known = opts.db ? await knownFromDb(opts.db, loaded.job, loaded.region) : undefined;
    const plan = planNight(loaded.job, loaded.region, known);
    const probes = opts.probe === undefined ? undefined : opts.probe === true ? DEFAULT_PROBES : opts.probe;
    if (probes !== undefined && !loaded.job.sweeps.coord) throw new ConfigError('--probe: the job has no sweeps.coord; the probe samples the region with CoordInfo requests', '--probe');
    const density = probes === undefined ? undefined : await probeRegion(loaded.job, loaded.region, probes, loggerFor(opts), { baseUrl: opts.baseUrl });
    const estimate: NightEstimate | undefined =
      density || (known && (known.knownPins > 0 || known.earlierNights)) ? estimateNight(loaded.job, plan.budget.requests, density, known?.earlierNights) : undefined;
    if (opts.json) {
      const knownOut = known ? { known: { ...known, coordTiles: undefined } } : {};
      process.stdout.write(`${JSON.stringify({ job: loaded.job.name, file: loaded.file, ...plan, ...knownOut, ...(estimate ? { estimate } : {}) })}\n`);
      return;
    }
    process.stdout.write(`${planText(loaded.job, loaded.file, plan, known, opts.db)}\n`);
    if (estimate) process.stdout.write(`\n${estimateText(estimate)}\n`);
  });
}

function probeCount(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new ConfigError(`--probe: expected a number of requests from 1 to 1000, got "${text}"`, '--probe');
  return n;
}

/**
 * The plan of the next run. StopFinder names are their own operation (planRun counts them with
 * ServingLines); with a database, ServingLines counts the stops due tonight, not every known stop.
 */
export function planNight(job: Job, region: ResolvedRegion, known: NightKnowledge | undefined): NightPlan {
  const plan = planRun(job, region, known ? { ...(known.coordTiles ? { coordTiles: known.coordTiles } : {}), stops: known.servingLinesStops } : {});
  const stopFinder = job.sweeps.stopFinder?.names.length ?? 0;
  const requests = { ...plan.budget.requests, servingLines: plan.budget.requests.servingLines - stopFinder, stopFinder };
  return { ...plan, budget: { ...plan.budget, requests } };
}

export function planText(job: Job, file: string, plan: NightPlan, known: NightKnowledge | undefined, dbUrl: string | undefined): string {
  const { budget } = plan;
  const out: string[] = [`job ${job.name} (${file})`, ''];
  if (plan.coordTiles.length > 0) {
    out.push(
      known?.coordTiles
        ? `CoordInfo tiles of night ${known.night + 1}, planned from ${known.knownPins} known pins (a tile that comes back capped is split where its hits lie):`
        : 'initial CoordInfo tiles (a tile that comes back capped is split where its hits lie):',
    );
    out.push(formatTable(['tile', 'minLon', 'minLat', 'maxLon', 'maxLat'], plan.coordTiles.map((t, i) => [String(i + 1), ...t.bbox.map((x) => x.toFixed(5))])));
  }
  // A loop, not Math.max(...): spreading a long list as arguments overflows the stack.
  const widest = plan.radial.reduce((most, c) => Math.max(most, c.radiusM), 0);
  if (plan.radial.length > 0) out.push(`OpArea RADIAL: ${plan.radial.length} circles of up to ${widest} m`);
  out.push('request budget (at least; splits and retries add to it):');
  const rows = Object.entries(budget.requests).filter(([k, v]) => k !== 'stopFinder' || v > 0);
  out.push(formatTable(['operation', 'requests'], rows.map(([k, v]) => [k, String(v)]).concat([['total', String(budget.total)]])));
  const servingLines = job.sweeps.servingLines;
  if (known) {
    out.push(`database ${dbUrl === undefined ? '' : redactUrl(dbUrl)}: ${known.knownPins} known pins, ${known.knownStops} known stops; the next run is night ${known.night + 1} of job ${job.name}`);
    if (servingLines?.forStops) {
      out.push(
        `servingLines: ${known.servingLinesStops} of ${known.knownStops} stops are due (never fetched, or in tonight's share of 1/${servingLines.refreshEveryNights}); ` +
          'stops new or changed tonight add one request each',
      );
    }
  }
  out.push(
    `at ${job.rateLimit.requestsPerSecond} req/s that is at least ${budget.minDurationSeconds.toFixed(1)} s` +
      (servingLines?.forStops && !known ? '; ServingLines adds one request per stop found.' : '.'),
  );
  return out.join('\n');
}

/** Reads what a database already knows, without changing it (no migration: an empty database knows nothing). */
export async function knownFromDb(url: string, job: Job, region: ResolvedRegion): Promise<NightKnowledge> {
  const db = await openDb(url);
  try {
    return await whenDatabaseLost(db, undefined, () => nightKnowledge(db, job, region));
  } finally {
    await db.close().catch(() => undefined);
  }
}

async function nightKnowledge(db: Db, job: Job, region: ResolvedRegion): Promise<NightKnowledge> {
  const exists = await sql<{ t: string | null }>`SELECT to_regclass('efa.pins')::text AS t`.execute(db.kysely);
  if (!exists.rows[0]?.t) return { knownPins: 0, knownStops: 0, night: 0, servingLinesStops: 0 };
  const night = await nightNumber(db.kysely, job.name);
  const earlier = await earlierNights(db, job.name);
  const everyNights = job.sweeps.servingLines?.refreshEveryNights ?? 1;
  const coord = job.sweeps.coord;
  // The stops a run sees are those its CoordInfo sweep finds: known stops in the region, when it asks for stops.
  const sweepsStops = coord !== undefined && (sweptPinTypes(coord).any || sweptPinTypes(coord).types.includes('STOP'));
  // The same choice as the ServingLines sweep's (the ledger's stopLinesDue), for the stops known now.
  const stops = await countDueStops(db.kysely, sourceOf(job), regionBBox(region), { all: everyNights <= 1, everyNights, night });
  const knownStops = stops.known;
  const servingLinesStops = job.sweeps.servingLines?.forStops && sweepsStops ? stops.due : 0;
  const withEarlier = earlier ? { earlierNights: earlier } : {};
  if (!coord) return { knownPins: 0, knownStops, night, servingLinesStops, ...withEarlier };
  const tiles = await planCoordTiles(db.kysely, sourceOf(job), coord, region, false);
  return { ...(tiles.known > 0 ? { coordTiles: tiles.tiles } : {}), knownPins: tiles.known, knownStops, night, servingLinesStops, ...withEarlier };
}

/** The last seven runs of the job that ended with data (succeeded or partial): what a night of it costs. */
async function earlierNights(db: Db, jobName: string): Promise<EarlierNights | undefined> {
  const r = await sql<{ runs: number; rmin: number | null; rmax: number | null; dmin: number | null; dmax: number | null }>`
    SELECT count(*)::int AS runs, min(requests)::int AS rmin, max(requests)::int AS rmax,
           round(min(extract(epoch FROM finished_at - started_at))::numeric, 1)::float8 AS dmin,
           round(max(extract(epoch FROM finished_at - started_at))::numeric, 1)::float8 AS dmax
    FROM (SELECT requests, started_at, finished_at FROM efa.runs
          WHERE job_name = ${jobName} AND finished_at IS NOT NULL AND status IN ('succeeded', 'partial')
          ORDER BY started_at DESC LIMIT 7) last`.execute(db.kysely);
  const row = r.rows[0];
  if (!row || row.runs === 0 || row.rmin === null || row.rmax === null || row.dmin === null || row.dmax === null) return undefined;
  return { runs: row.runs, requests: { min: row.rmin, max: row.rmax }, durationS: { min: row.dmin, max: row.dmax } };
}
