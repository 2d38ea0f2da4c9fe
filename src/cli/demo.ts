import { join } from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { dbUrlFrom, openDb } from '../db/index.js';
import { loadJob } from '../job/index.js';
import { packageRoot } from '../util/package-root.js';
import { runJob } from '../run/index.js';
import { formatTable } from '../util/table.js';
import { addDbOption, addOutputOptions, loggerFor, type CommonOptions } from './common.js';
import { printRunSummary } from './run.js';
import { connectionHelp, defaultServePort, psqlCommand } from './serve.js';

const exampleQuery = `SELECT s.name, count(*) AS lines
FROM efa.stops s JOIN efa.stop_lines sl USING (source, stop_id)
WHERE s.deleted_at IS NULL GROUP BY s.name ORDER BY lines DESC LIMIT 5;`;

const relations = ['pins', 'stops', 'pois', 'lines', 'stop_lines', 'notices', 'sharing_providers', 'operating_areas', 'rejects'] as const;

/** `npm start`: the simulator, the demo job and the embedded database, then what an analyst needs to go on. */
export function registerDemo(program: Command): void {
  const cmd = program
    .command('demo', { hidden: true })
    .description('run jobs/demo.json against the bundled simulator into the embedded database (npm start)')
    .option('--size <n>', 'pins in the simulated world', (v) => Number(v), 5000);
  addOutputOptions(addDbOption(cmd)).action(async (opts: CommonOptions & { size: number }) => {
    const log = loggerFor(opts);
    const { startSimulator } = await import('../sim/server.js');
    const { writeRunReport } = await import('../report/index.js');
    const sim = await startSimulator({ port: 0, seed: 1, size: opts.size });
    log.info(`simulator with ${sim.world.pinCount} pins at ${sim.url}`);
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      // The package's own demo job by its path: a bare name would look in the current directory's jobs/ first.
      const loaded = await loadJob(join(packageRoot, 'jobs', 'demo.json'));
      const summary = await runJob({ loaded, db, log, baseUrl: sim.url, progress: process.stderr.isTTY ? 'bar' : 'lines' });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      } else {
        printRunSummary(summary, log);
        const counts: string[][] = [];
        for (const r of relations) {
          const row = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`efa.${r}`)}`.execute(db.kysely);
          counts.push([`efa.${r}`, String(row.rows[0]?.n ?? 0)]);
        }
        const report = await writeRunReport(db, summary.runId, '.efa-sync/report.html');
        const top = await sql<{ name: string; lines: number }>`${sql.raw(exampleQuery.replace(/;$/, ''))}`.execute(db.kysely);
        const out = [
          '',
          `efa-sync demo: job "${summary.job}", run ${summary.runId} ${summary.status} in ${summary.durationS} s, ${summary.requests} requests`,
          '',
          formatTable(['relation', 'rows'], counts),
          `database: ${db.displayUrl}  (open it again with --db ${db.displayUrl}, or efa-sync runs)`,
          '',
          'example query (stops served by the most lines):',
          exampleQuery,
          '',
          formatTable(['stop', 'lines'], top.rows.map((r) => [r.name, String(r.lines)])),
          `report of this run (offline HTML with a map): ${report.file}`,
          ...(db.kind === 'pglite'
            ? [
                '',
                `open it in psql, QGIS or a BI tool: npx efa-sync serve --db ${db.displayUrl}   (read-only; while it runs:)`,
                ...connectionHelp({
                  host: '127.0.0.1',
                  port: defaultServePort,
                  readOnly: true,
                  psql: psqlCommand('127.0.0.1', defaultServePort),
                }).slice(0, 2),
              ]
            : []),
        ];
        process.stdout.write(`${out.join('\n')}\n`);
      }
      process.exitCode = summary.exitCode;
    } finally {
      await db.close();
      await sim.stop();
    }
  });
}
