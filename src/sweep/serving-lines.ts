import { sql } from 'kysely';
import { linesRelation } from '../db/relations.js';
import { upsertStopLines, upsertTracked } from '../db/upsert.js';
import { toLineRow } from '../normalize/lines.js';
import type { SweepContext } from './context.js';
import { drainQueue } from './queue.js';
import { runUnit } from './unit.js';

const stopPage = 500;

/**
 * Stops this run has seen whose lines are due, a page at a time (a million-pin region is never
 * held in memory): every stop with `--full`; otherwise stops that are new or changed in this run,
 * that never had their lines fetched, and the rolling share `hash(stop) mod N = night mod N`, so
 * every stop is refreshed within `refreshEveryNights` nights.
 */
async function* dueStops(ctx: SweepContext, everyNights: number, night: number): AsyncGenerator<string[]> {
  let after = '';
  const all = ctx.full || everyNights <= 1;
  for (;;) {
    const page = await sql<{ id: string }>`
      SELECT p.id FROM efa.run_seen s JOIN efa.pins p ON p.pin_key = s.key
      WHERE s.run_id = ${ctx.runId}::bigint AND s.relation = 'pins' AND p.type = 'STOP' AND p.id IS NOT NULL AND p.id > ${after}
        AND (${all}::boolean OR p.changed_run = ${ctx.runId}::bigint
             OR NOT EXISTS (SELECT 1 FROM efa.run_tiles t JOIN efa.runs r ON r.run_id = t.run_id
                            WHERE t.operation = 'servingLines' AND t.tile_id = 'stop:' || p.id AND t.status = 'done'
                              AND r.job_name = ${ctx.job.name})
             OR mod(hashtext(p.id)::bigint + 2147483648, ${everyNights}::bigint) = ${night % everyNights}::bigint)
      ORDER BY p.id LIMIT ${stopPage}`.execute(ctx.db.kysely);
    if (page.rows.length === 0) return;
    yield page.rows.map((r) => r.id);
    after = page.rows[page.rows.length - 1]?.id ?? after;
  }
}

/**
 * ServingLines: `mode=odv` for every stop swept in this run (lines and stop-line pairs), and
 * `mode=line` for each configured line name (lines only).
 */
export async function sweepServingLines(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.servingLines;
  if (!cfg) return;
  ctx.progress.phase('servingLines');
  const common = { lineReqType: cfg.lineReqType };
  if (cfg.forStops) {
    const night = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM efa.runs WHERE job_name = ${ctx.job.name} AND run_id < ${ctx.runId}::bigint`.execute(ctx.db.kysely);
    for await (const stops of dueStops(ctx, cfg.refreshEveryNights, night.rows[0]?.n ?? 0)) {
      ctx.progress.addTotal(stops.length);
      await drainQueue(stops, ctx.job.rateLimit.concurrency, async (stopId) => {
        await runUnit(
          ctx,
          { operation: 'servingLines', id: `stop:${stopId}` },
          () => ctx.client.servingLinesAtStop({ stopId, ...common }),
          async (trx, result) => {
            const rows = result.records.map(toLineRow);
            await upsertTracked(trx, linesRelation, ctx.runId, rows);
            const pairs = rows.map((r) => ({ stopId, lineKey: r.line_key }));
            await upsertStopLines(trx, ctx.runId, pairs);
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
      async (trx, result) => {
        await upsertTracked(trx, linesRelation, ctx.runId, result.records.map(toLineRow));
      },
    );
    return [];
  });
}
