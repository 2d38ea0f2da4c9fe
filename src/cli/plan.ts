import type { Command } from 'commander';
import { sql } from 'kysely';
import { openDb } from '../db/index.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import type { Tile } from '../tiling/index.js';
import { loadJob } from '../job/index.js';
import { planCoordTiles, planRun } from '../sweep/plan.js';
import { formatTable } from '../util/table.js';
import { addOutputOptions, type CommonOptions } from './common.js';

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan <job>')
    .description('show the tiles and the request budget of a run without sending a request')
    .option('--db <url>', 'plan night two from what this database knows (postgres://… or pglite:<dir>)');
  addOutputOptions(cmd).action(async (jobArg: string, opts: CommonOptions) => {
    const loaded = await loadJob(jobArg);
    const known = opts.db ? await knownFromDb(opts.db, loaded.job, loaded.region) : {};
    const plan = planRun(loaded.job, loaded.region, known);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ job: loaded.job.name, file: loaded.file, ...plan })}\n`);
      return;
    }
    const { budget } = plan;
    const out: string[] = [`job ${loaded.job.name} (${loaded.file})`, ''];
    if (plan.coordTiles.length > 0) {
      out.push('initial CoordInfo tiles (a tile that comes back capped is split where its hits lie):');
      out.push(formatTable(['tile', 'minLon', 'minLat', 'maxLon', 'maxLat'], plan.coordTiles.map((t) => [t.id.split('/')[0] ?? t.id, ...t.bbox.map((x) => x.toFixed(5))])));
    }
    if (plan.radial.length > 0) out.push(`OpArea RADIAL: ${plan.radial.length} circles of up to ${Math.max(...plan.radial.map((c) => c.radiusM))} m`);
    out.push('request budget (at least; splits and retries add to it):');
    out.push(
      formatTable(
        ['operation', 'requests'],
        Object.entries(budget.requests).map(([k, v]) => [k, String(v)]).concat([['total', String(budget.total)]]),
      ),
    );
    if (known.coordTiles) out.push(`tiles planned from the ${known.known ?? 0} pins ${opts.db ?? ''} knows; ${known.stops ?? 0} known stops`);
    out.push(
      `at ${loaded.job.rateLimit.requestsPerSecond} req/s that is at least ${budget.minDurationSeconds.toFixed(1)} s` +
        (known.coordTiles ? '.' : '; ServingLines adds one request per stop found.'),
    );
    process.stdout.write(`${out.join('\n')}\n`);
  });
}

/** Reads what a database already knows, without changing it (no migration: an empty database knows nothing). */
async function knownFromDb(url: string, job: Job, region: ResolvedRegion): Promise<{ coordTiles?: Tile[]; stops?: number; known?: number }> {
  const db = await openDb(url);
  try {
    const exists = await sql<{ t: string | null }>`SELECT to_regclass('efa.pins')::text AS t`.execute(db.kysely);
    if (!exists.rows[0]?.t) return {};
    const stops = await sql<{ n: number }>`SELECT count(*)::int AS n FROM efa.pins WHERE type = 'STOP' AND deleted_at IS NULL`.execute(db.kysely);
    if (!job.sweeps.coord) return { stops: stops.rows[0]?.n ?? 0 };
    const plan = await planCoordTiles(db.kysely, job.source ?? job.name, job.sweeps.coord, region, false);
    return { coordTiles: plan.tiles, known: plan.known, stops: stops.rows[0]?.n ?? 0 };
  } finally {
    await db.close();
  }
}
