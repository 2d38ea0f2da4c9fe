import type { Command } from 'commander';
import { loadJob } from '../job/index.js';
import { planRun } from '../sweep/plan.js';
import { formatTable } from '../util/table.js';
import { addOutputOptions, type CommonOptions } from './common.js';

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan <job>')
    .description('show the tiles and the request budget of a run without sending a request');
  addOutputOptions(cmd).action(async (jobArg: string, opts: CommonOptions) => {
    const loaded = await loadJob(jobArg);
    const plan = planRun(loaded.job, loaded.region);
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
    out.push(`at ${loaded.job.rateLimit.requestsPerSecond} req/s that is at least ${budget.minDurationSeconds.toFixed(1)} s; ServingLines adds one request per stop found.`);
    process.stdout.write(`${out.join('\n')}\n`);
  });
}
