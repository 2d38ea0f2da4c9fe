import { dueStopsPage } from '../../db/plan-reads.js';
import { nightNumber } from '../../db/runs.js';
import { mergeRows } from '../../db/merge.js';
import { lines, stopLines, toLineRow } from '../../relations/index.js';
import type { SweepContext } from './context.js';
import { drainQueue } from './queue.js';
import { runUnit } from './unit.js';

/** Seen sets per page: a set holds one tile's keys (at most maxPerRequest), so a page a few thousand. */
const setsPerPage = 8;

/** Stops this run has seen whose lines are due, a page at a time (see dueStopsPage). */
async function* dueStops(ctx: SweepContext, everyNights: number, night: number): AsyncGenerator<string[]> {
  let afterSet = '0';
  const all = ctx.full || everyNights <= 1;
  for (;;) {
    const page = await dueStopsPage(ctx.db.kysely, ctx.run, { all, everyNights, night, afterSet, sets: setsPerPage });
    if (page.lastSet === undefined) return;
    if (page.stops.length > 0) yield page.stops;
    afterSet = page.lastSet;
  }
}

/**
 * ServingLines: `mode=odv` for every due stop swept in this run (lines and stop-line pairs), and
 * `mode=line` for each configured line name (lines only).
 */
export async function sweepServingLines(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.servingLines;
  if (!cfg) return;
  ctx.progress.phase('servingLines');
  const common = { lineReqType: cfg.lineReqType };
  if (cfg.forStops) {
    const night = await nightNumber(ctx.db.kysely, ctx.job.name, ctx.run.runId);
    for await (const stops of dueStops(ctx, cfg.refreshEveryNights, night)) {
      ctx.progress.addTotal(stops.length);
      // A stop's lines take one request, and retries: the budget grows with the stops that are due.
      ctx.extendBudget(3 * stops.length);
      await drainQueue(stops, ctx.job.rateLimit.concurrency, async (stopId) => {
        await runUnit(
          ctx,
          { operation: 'servingLines', id: `stop:${stopId}`, subject: stopId },
          () => ctx.client.servingLinesAtStop({ stopId, ...common }),
          async (tx, result) => {
            const rows = result.records.map(toLineRow);
            await mergeRows(tx, lines, ctx.run, rows);
            await mergeRows(tx, stopLines, ctx.run, rows.map((r) => ({ stop_id: stopId, line_key: r.line_key })));
          },
        );
        return [];
      });
    }
  }
  ctx.progress.addTotal(cfg.lineNames.length);
  await drainQueue(cfg.lineNames, ctx.job.rateLimit.concurrency, async (lineName) => {
    await runUnit(
      ctx,
      { operation: 'servingLines', id: `line:${lineName}` },
      () => ctx.client.servingLinesByName({ lineName, ...common }),
      async (tx, result) => {
        await mergeRows(tx, lines, ctx.run, result.records.map(toLineRow));
      },
    );
    return [];
  });
}
