import { readRelationCounts } from '../db/run-record.js';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { addDbOption, addOutputOptions, positiveNumber, type CommonOptions } from './common.js';
import { openMigratedDb } from './database.js';
import { formatTable } from '../util/table.js';

interface RunRow {
  run_id: string;
  job_name: string;
  status: string;
  started_at: Date;
  duration_s: number | null;
  requests: number;
  stats: unknown;
  source: string;
}

export function registerRuns(program: Command): void {
  const cmd = program
    .command('runs')
    .description('list recent runs: id, job, status, started, duration, requests, row counts')
    .option('--job <name>', 'only runs of this job')
    .option('--limit <n>', 'how many runs', positiveNumber('--limit'), 20);
  addOutputOptions(addDbOption(cmd)).action(async (opts: CommonOptions & { job?: string; limit: number }) => {
    const db = await openMigratedDb(opts, { geometry: false });
    try {
      const result = await sql<RunRow>`
        SELECT run_id, job_name, source, status, started_at, requests, stats,
               round(extract(epoch FROM (coalesce(finished_at, now()) - started_at))::numeric, 1)::float8 AS duration_s
        FROM efa.runs
        WHERE ${opts.job ?? null}::text IS NULL OR job_name = ${opts.job ?? null}
        ORDER BY run_id DESC LIMIT ${opts.limit}`.execute(db.kysely);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(result.rows)}\n`);
        return;
      }
      const rows = result.rows.map((r) => {
        // Relation counts only: 0.1 kept run counters under `_` keys in the same object.
        const totals = Object.values(readRelationCounts(r.stats)).reduce(
          (acc, s) => ({ ins: acc.ins + s.inserted, upd: acc.upd + s.updated, del: acc.del + s.deleted }),
          { ins: 0, upd: 0, del: 0 },
        );
        return [r.run_id, r.job_name, r.source, r.status, r.started_at.toISOString().slice(0, 19).replace('T', ' '), `${r.duration_s ?? ''}s`, String(r.requests), `+${totals.ins} ~${totals.upd} -${totals.del}`];
      });
      process.stdout.write(
        rows.length === 0 ? 'no runs yet\n' : formatTable(['run', 'job', 'source', 'status', 'started (UTC)', 'duration', 'requests', 'rows +ins ~upd -del'], rows),
      );
    } finally {
      await db.close();
    }
  });
}
