import type { Command } from 'commander';
import { RunNotFoundError } from '../report/queries.js';
import { addCommonOptions, type CommonOptions } from './common.js';
import { openMigratedDb } from './database.js';
import { terminalText } from '../util/terminal-text.js';

interface ReportOptions extends CommonOptions {
  run?: string;
  out: string;
}

/** `efa-sync report`: one self-contained HTML file of a run, with its map. */
export function registerReport(program: Command): void {
  const cmd = program
    .command('report')
    .description('write one offline HTML report of a run (summary, request rate, rows, failed tiles, map)')
    .option('--run <id>', 'the run to report (default: the latest run)', (v) => {
      // Checked before the database is opened: a typo should not cost a PGlite start.
      if (!/^\d+$/.test(v)) throw new RunNotFoundError(`--run: expected a run id (an integer), got "${v}"`, 'run');
      return v;
    })
    .option('--out <file>', 'the HTML file to write', 'report.html');
  addCommonOptions(cmd, ['db', 'json', 'log']).action(async (opts: ReportOptions) => {
    const db = await openMigratedDb(opts);
    try {
      // Loaded when the command runs: a nightly run's process does not carry it (memory, start-up).
      const { writeRunReport } = await import('../report/index.js');
      const r = await writeRunReport(db, opts.run, opts.out);
      process.stdout.write(
        opts.json ? `${JSON.stringify({ runId: r.runId, file: r.file, bytes: r.bytes })}\n` : `report of run ${r.runId} written to ${terminalText(r.file)} (${Math.ceil(r.bytes / 1024)} KiB)\n`,
      );
    } finally {
      await db.close();
    }
  });
}
