import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { dbUrlFrom, openDb } from '../db/index.js';
import { loadJob } from '../job/index.js';
import { ordered } from '../relations/index.js';
import { packageRoot } from '../util/package-root.js';
import { runJob } from '../run/index.js';
import { formatTable } from '../util/table.js';
import { addDbOption, addOutputOptions, loggerFor, type CommonOptions } from './common.js';
import { printRunSummary } from './run-report.js';
import { connectionHelp, defaultServePort, psqlCommand } from './serve.js';

/**
 * Lines per stop as efa.stop_summary.line_count counts them: a line is its number within its means of
 * transport (efa.lines has a row per direction), over stop-lines and lines not gone, per stop (two stops
 * may share a name).
 */
export const exampleQuery = `SELECT s.stop_id, s.name, count(DISTINCT (l.mot, l.number)) AS lines
FROM efa.stops s
JOIN efa.stop_lines sl ON sl.source = s.source AND sl.stop_id = s.stop_id AND sl.deleted_at IS NULL
JOIN efa.lines l ON l.source = sl.source AND l.line_key = sl.line_key AND l.deleted_at IS NULL
WHERE s.deleted_at IS NULL
GROUP BY s.source, s.stop_id, s.name ORDER BY lines DESC, s.name LIMIT 5;`;

/**
 * Where the demo's report goes without --report-out: beside an embedded database (`pglite:<dir>` →
 * `<dir>/../report.html`, so the default `./.efa-sync/db` gives `./.efa-sync/report.html`), else
 * `.efa-sync/report.html` in the working directory.
 */
export function demoReportPath(displayUrl: string): string {
  if (displayUrl.startsWith('pglite:') && displayUrl !== 'pglite:memory') return join(dirname(resolve(displayUrl.slice('pglite:'.length))), 'report.html');
  return join('.efa-sync', 'report.html');
}

// Every nightly relation (src/relations/), pins followed by its two views, then what was rejected.
const relations = [...ordered('after').flatMap((r) => (r === 'pins' ? ['pins', 'stops', 'pois'] : [r])), 'rejects'];

/** `npm start`: the simulator, the demo job and the embedded database, then what an analyst needs to go on. */
export function registerDemo(program: Command): void {
  const cmd = program
    .command('demo', { hidden: true })
    .description('run jobs/demo.json against the bundled simulator into the embedded database (npm start)')
    .option('--size <n>', 'pins in the simulated world', (v) => Number(v), 5000)
    .option('--report-out <file>', 'where the run\'s HTML report goes (default: beside an embedded database, else .efa-sync/report.html)');
  addOutputOptions(addDbOption(cmd)).action(async (opts: CommonOptions & { size: number; reportOut?: string }) => {
    const log = loggerFor(opts);
    const { startSimulator } = await import('../sim/server.js');
    const { writeRunReport } = await import('../report/index.js');
    const sim = await startSimulator({ port: 0, seed: 1, size: opts.size });
    log.info(`simulator with ${sim.world.pinCount} pins at ${sim.url}`);
    const db = await openDb(dbUrlFrom(opts.db));
    try {
      // The package's own demo job by its path: a bare name would look in the current directory's jobs/ first.
      const loaded = await loadJob(join(packageRoot, 'jobs', 'demo.json'));
      // From the command's start: the simulator and the database's open are what the user waited for too.
      const summary = await runJob({ loaded, db, log, baseUrl: sim.url, progress: process.stderr.isTTY ? 'bar' : 'lines', waitingSinceMs: 0 });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      } else {
        printRunSummary(summary, log);
        const counts: string[][] = [];
        for (const r of relations) {
          const row = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`efa.${r}`)}`.execute(db.kysely);
          counts.push([`efa.${r}`, String(row.rows[0]?.n ?? 0)]);
        }
        const report = await writeRunReport(db, summary.runId, opts.reportOut ?? demoReportPath(db.displayUrl));
        const top = await sql<{ stop_id: string; name: string; lines: number }>`${sql.raw(exampleQuery.replace(/;$/, ''))}`.execute(db.kysely);
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
          formatTable(['stop id', 'stop', 'lines'], top.rows.map((r) => [r.stop_id, r.name, String(r.lines)])),
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
