import type { Command } from 'commander';
import { sql } from 'kysely';
import { openDb, redactUrl, type Db } from '../db/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import { loadJob } from '../job/index.js';
import { countDueStops } from '../db/ledger.js';
import { nightNumber } from '../db/runs.js';
import { sourceOf, sweptPinTypes } from '../relations/index.js';
import { planCoordTiles, planRun, type RunPlan } from '../sweep/plan.js';
import { regionBBox, type Tile } from '../tiling/index.js';
import { formatTable } from '../util/table.js';
import { addCommonOptions, dbOption, loggerFor, whenDatabaseLost, type CommonOptions } from './common.js';

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

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan <job>')
    .description('show the tiles and the request budget of a run without sending a request')
    .addOption(dbOption('plan the next night from what this database knows (postgres://… or pglite:<dir>); without it, the first night'));
  addCommonOptions(cmd, ['baseUrl', 'json', 'log']).action(async (jobArg: string, opts: CommonOptions) => {
    const loaded = await loadJob(jobArg, process.cwd(), { baseUrl: opts.baseUrl });
    loggerFor(opts).info(`job ${loaded.job.name} loaded from ${loaded.file}`);
    const known = opts.db ? await knownFromDb(opts.db, loaded.job, loaded.region) : undefined;
    const plan = planNight(loaded.job, loaded.region, known);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ job: loaded.job.name, file: loaded.file, ...plan, ...(known ? { known: { ...known, coordTiles: undefined } } : {}) })}\n`);
      return;
    }
    process.stdout.write(`${planText(loaded.job, loaded.file, plan, known, opts.db)}\n`);
  });
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
  const everyNights = job.sweeps.servingLines?.refreshEveryNights ?? 1;
  const coord = job.sweeps.coord;
  // The stops a run sees are those its CoordInfo sweep finds: known stops in the region, when it asks for stops.
  const sweepsStops = coord !== undefined && (sweptPinTypes(coord).any || sweptPinTypes(coord).types.includes('STOP'));
  // The same choice as the ServingLines sweep's (the ledger's stopLinesDue), for the stops known now.
  const stops = await countDueStops(db.kysely, sourceOf(job), regionBBox(region), { all: everyNights <= 1, everyNights, night });
  const knownStops = stops.known;
  const servingLinesStops = job.sweeps.servingLines?.forStops && sweepsStops ? stops.due : 0;
  if (!coord) return { knownPins: 0, knownStops, night, servingLinesStops };
  const tiles = await planCoordTiles(db.kysely, sourceOf(job), coord, region, false);
  return { ...(tiles.known > 0 ? { coordTiles: tiles.tiles } : {}), knownPins: tiles.known, knownStops, night, servingLinesStops };
}
