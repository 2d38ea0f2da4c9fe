/**
 * The run's writer at a sweep's pace, beside a plain COPY of the same rows (PostgreSQL only): a
 * first load handed to the batching writer tile by tile (1,000 rows) through the sweep's own
 * backlog (BACKLOG_ROWS), with the event loop held `BENCH_WRITER_HOLD_MS` (default 12) before each
 * tile, as the parsing of an answer holds it in a run. Every statement of the writer waits for its
 * answer, and every answer for the event loop: this is where a writer's round trips cost what they
 * cost in a run (the loader bench hands every tile over at once, to a writer that never waits for
 * the loop). Its baseline is one COPY of the same rows into a table indexed as efa.pins, timed
 * before and after the writer (the mean), so that a machine that drifts moves both.
 */
import { sql } from 'kysely';
import { createBatchingWriter } from '../src/db/batching-writer.js';
import { migrate } from '../src/db/migrate.js';
import { createRun } from '../src/db/runs.js';
import { pins as pinsEntity, toPinRow } from '../src/relations/index.js';
import { createBacklog } from '../src/sweep/nightly/backlog.js';
import { BACKLOG_ROWS } from '../src/sweep/nightly/coord.js';
import { baselineText, benchPins, copyColumns, postgresTarget } from './bench-pins.js';
import { int, postgresReachable, ratio, secs, type BenchResult } from './util.js';

const TILE_ROWS = 1000;

/** Holds the event loop for `ms`, as a parse of an answer does. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

export async function benchWriterPace(): Promise<BenchResult> {
  const reach = await postgresReachable();
  if (!reach.ok) return { lines: [], notes: [`PostgreSQL not reachable (${reach.reason}): the writer-pace bench needs a server`] };
  const n = Number(process.env['BENCH_WRITER_ROWS'] ?? 300_000);
  const holdMs = Number(process.env['BENCH_WRITER_HOLD_MS'] ?? 12);
  const rows = benchPins(n).map(toPinRow);
  const target = await postgresTarget();
  try {
    const { db } = target;
    await migrate(db);
    await db.exec('CREATE SCHEMA bench; CREATE TABLE bench.pins_copy (LIKE efa.pins INCLUDING ALL); CREATE TABLE bench.pins_copy_after (LIKE efa.pins INCLUDING ALL);');
    const scope = { source: 'bench', region: '{"type":"Polygon","coordinates":[]}', regionMax: [0, 0] as const, relations: {} };
    const run = await createRun(db.kysely, { jobName: 'bench-writer-pace', jobHash: 'bench', scope, options: {} });
    const copy = async (table: string): Promise<number> => {
      const t0 = performance.now();
      await db.transaction((tx) => tx.copyIn(table, copyColumns, baselineText(rows, run.runId)));
      return performance.now() - t0;
    };
    const before = await copy('bench.pins_copy');
    const writer = createBatchingWriter(db, run);
    const backlog = createBacklog(BACKLOG_ROWS);
    const t0 = performance.now();
    for (let i = 0; i < rows.length; i += TILE_ROWS) {
      hold(holdMs);
      // The next tile's answer arrives in a later turn of the event loop, as a response does.
      await new Promise((resolve) => setImmediate(resolve));
      const part = rows.slice(i, i + TILE_ROWS);
      const tile = { operation: 'coordInfo', tileId: `pace/${i}`, depth: 0, status: 'done' as const, attempts: 1, hits: part.length, durationMs: 0 };
      await backlog.add(part.length, () => writer.rows(pinsEntity, part, { tile, unit: tile.tileId, rejects: [] }));
    }
    await backlog.settle();
    const writerMs = performance.now() - t0;
    const after = await copy('bench.pins_copy_after');
    const stored = await sql<{ n: number; merges: number }>`
      SELECT (SELECT count(*) FROM efa.pins WHERE source = 'bench')::int AS n,
             (SELECT count(*) FROM efa.run_seen_sets WHERE run_id = ${run.runId}::bigint)::int AS merges`.execute(db.kysely);
    const check = stored.rows[0];
    if (check?.n !== rows.length) throw new Error(`the writer stored ${check?.n} of ${rows.length} rows`);
    const copyMs = (before + after) / 2;
    const heldMs = Math.ceil(rows.length / TILE_ROWS) * holdMs;
    console.log(
      `PostgreSQL: ${int(rows.length)} rows in tiles of ${TILE_ROWS}, the event loop held ${holdMs} ms a tile (${secs(heldMs)} in all), ` +
        `backlog ${int(BACKLOG_ROWS)} rows: the writer ${secs(writerMs)} (busy ${secs(writer.busyMs())}, ${check.merges} merges), ` +
        `COPY ${secs(before)} before and ${secs(after)} after`,
    );
    return {
      lines: [{ metric: `PostgreSQL writer at a sweep's pace (${int(rows.length)} rows, ${holdMs} ms a tile)`, value: secs(writerMs), baseline: `COPY ${secs(copyMs)}`, ratio: ratio(writerMs, copyMs) }],
    };
  } finally {
    await target.dispose();
  }
}
