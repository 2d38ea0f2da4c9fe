import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { createLogger } from '../util/log.js';
import { keepBareAcceptDeletions } from './accept-deletions.js';
import { checkOptionValues, dropUnsetEnvironment, outputSettingsFrom, outputSettingsFromArgv, reportFailure, type CommonOptions, type OutputSettings } from './common.js';
import { explainUncaught } from './database.js';
import { registerDb } from './db-copy.js';
import { registerDemo } from './demo.js';
import { registerDeployments } from './deployments.js';
import { registerInit } from './init.js';
import { exitCodeHelp } from './exit-code-table.js';
import { fileWritesAbandoned } from '../util/bounded-file.js';
import { registerDoctor } from './doctor.js';
import { registerExport } from './export.js';
import { registerLookup } from './lookup.js';
import { registerMigrate } from './migrate.js';
import { registerPlan } from './plan.js';
import { registerReport } from './report.js';
import { registerGrantReader } from './grant-reader.js';
import { registerHistory } from './history.js';
import { registerRun } from './run.js';
import { registerRuns } from './runs.js';
import { registerServe } from './serve.js';
import { registerSim } from './sim.js';

// What the raw command line says about output, until commander has parsed the command's options.
const early = outputSettingsFromArgv(process.argv.slice(2));
let settings: OutputSettings = early;
const topLevelLog = (): ReturnType<typeof createLogger> => createLogger({ format: settings.format });

const program = new Command('efa-sync')
  .description('Harvest a Mentz EFA public-transport API into PostGIS: tiled, rate-limited, incremental.')
  .version('0.1.0')
  .exitOverride()
  // Piped or captured help (grep, a scheduler's docs, tests) keeps each option and its variable on
  // one line; on a terminal commander wraps to the terminal's width as usual.
  .configureHelp(process.stdout.isTTY ? {} : { helpWidth: 200 })
  // Commander's own errors (unknown option, bad choice) are log lines like any other: JSON when asked.
  .configureOutput({
    outputError: (text) => topLevelLog().error(text.trim().replace(/^error: /, ''), { error: 'UsageError', exitCode: ExitCode.usage }),
  });
// The one exit-code table (src/errors.ts), as every document shows it.
program.addHelpText('after', `\n${exitCodeHelp()}`);
if (early.format === 'pretty') program.showHelpAfterError('(run efa-sync <command> --help for its options)');
program.hook('preAction', (_program, action) => {
  settings = outputSettingsFrom(action.opts<CommonOptions>(), early);
  // After the settings: a bad option value is reported in the format the command asked for.
  checkOptionValues(action);
});

registerRun(program);
registerPlan(program);
registerMigrate(program);
registerRuns(program);
registerSim(program);
registerLookup(program);
registerReport(program);
registerGrantReader(program);
registerServe(program);
registerDoctor(program);
registerExport(program);
registerDemo(program);
registerHistory(program);
registerDeployments(program);
registerInit(program);
registerDb(program);

dropUnsetEnvironment(program);

// An error escaping every handler (a timer, a stream) still ends with one line, not a stack dump.
process.on('uncaughtException', (error) => {
  void explainUncaught(error).then((explained) => process.exit(reportFailure(explained, topLevelLog(), settings)));
});

try {
  await program.parseAsync(keepBareAcceptDeletions(process.argv));
} catch (error) {
  // Help and version exit 0; any other parse failure is bad usage (contract: exit 2). Every other
  // error is mapped by reportFailure, the one place that turns an error into text and an exit code.
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? ExitCode.succeeded : ExitCode.usage;
  else process.exitCode = reportFailure(error, topLevelLog(), settings);
}
// A report file given up on past its bound (a hung mount) still holds a thread and the event loop:
// the command has said everything, so it exits now rather than when the file system answers.
if (fileWritesAbandoned() > 0) process.exit(process.exitCode ?? ExitCode.succeeded);
