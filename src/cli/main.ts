#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { createLogger } from '../util/log.js';
import { exitCodeFor } from './common.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerLookup } from './lookup.js';
import { registerMigrate } from './migrate.js';
import { registerPlan } from './plan.js';
import { registerReport } from './report.js';
import { registerGrantReader } from './grant-reader.js';
import { registerRun } from './run.js';
import { registerRuns } from './runs.js';
import { registerServe } from './serve.js';
import { registerSim } from './sim.js';

const program = new Command('efa-sync')
  .description('Harvest a Mentz EFA public-transport API into PostGIS: tiled, rate-limited, incremental.')
  .version('0.1.0')
  .showHelpAfterError('(run efa-sync <command> --help for its options)')
  .exitOverride();

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
registerDemo(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // help and version exit 0; any other parse failure is bad usage (contract: exit 2).
    process.exitCode = error.exitCode === 0 ? ExitCode.succeeded : ExitCode.usage;
  } else {
    process.exitCode = exitCodeFor(error, createLogger());
  }
}
