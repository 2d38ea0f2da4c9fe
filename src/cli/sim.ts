import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
import { COORD_ORDERS, type CoordOrder } from '../sim/ops/coord.js';
import { SIM_DIALECTS, type SimDialect } from '../sim/render/index.js';
import { STOP_ID_SCHEMES, type StopIdScheme } from '../sim/types.js';
import { SimulatorOptionError } from '../sim/errors.js';
import { parseClock } from '../sim/clock.js';
import { addCommonOptions, loggerFor, positiveNumber, type CommonOptions } from './common.js';
import { untilStopped } from './stop.js';

interface SimOptions extends Pick<CommonOptions, 'json' | 'logFormat' | 'verbose' | 'debug'> {
  host: string;
  port: number;
  seed: number;
  size: number;
  world?: string;
  faults?: string;
  today?: string;
  dialect: SimDialect;
  stopIds?: StopIdScheme;
  localIdBase?: number;
  coordOrder: CoordOrder;
  clock?: string;
  change?: number;
}

/** `--clock`: an ISO 8601 instant with a zone, checked here so the error names the flag. */
function clockText(value: string): string {
  try {
    parseClock(value, '--clock');
  } catch (e) {
    if (e instanceof SimulatorOptionError) throw new ConfigError(e.message, '--clock');
    throw e;
  }
  return value;
}

/** `--local-id-base`: a whole number, 0 allowed (local ids 0, 1, 2, ...). */
function localIdBase(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new ConfigError(`--local-id-base: expected a whole number, got "${value}"`, '--local-id-base');
  return Number(value);
}

/** `--change`: a share of the world's pins, 0 to 1. */
function changeShare(value: string): number {
  const share = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(share >= 0 && share <= 1)) throw new ConfigError(`--change: expected a share between 0 and 1 (0.01 is 1 %), got "${value}"`, '--change');
  return share;
}

export function registerSim(program: Command): void {
  const cmd = program
    .command('sim')
    .description('serve the local EFA simulator, on 127.0.0.1 unless --host (the five operations of efa-api.md)')
    .option('--host <address>', 'address to listen on (0.0.0.0 inside a container)', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', (v) => (v === '0' ? 0 : positiveNumber('--port')(v)), 8080)
    .option('--seed <n>', 'seed of the generated world', positiveNumber('--seed'), 1)
    .option('--size <n>', 'pins in the generated world', positiveNumber('--size'), 5000)
    .option('--world <dir>', 'load a world from real data files (layout of shared/world-data) instead of generating one')
    .option('--faults <spec>', 'inject faults, e.g. latency=20-80,error5xx=0.1,rate429=20:1,hang=0.01,truncate=0.02')
    .option('--today <YYYY-MM-DD>', 'the date the simulator treats as today')
    .addOption(new Option('--dialect <dialect>', 'response dialect of the simulated deployment').choices([...SIM_DIALECTS]).default('json'))
    .addOption(new Option('--stop-ids <scheme>', 'stop ids of the generated world: global (de:08111:6008) or local numbers with the global id beside them (default global)').choices([...STOP_ID_SCHEMES]))
    .option('--local-id-base <n>', 'first local stop id with --stop-ids local (default 1000000)', localIdBase)
    .addOption(
      new Option('--coord-order <order>', 'which hits a capped CoordInfo answer keeps: nearest the centre, by id, by load order, or shuffled')
        .choices([...COORD_ORDERS])
        .default('distance'),
    )
    .option('--change <share>', 'change this share of the nightly pins (a third removed, moved, added) before serving: the same world a night later, e.g. 0.01', changeShare)
    .option('--clock <iso>', 'fix the clock of the moving world (vehicles, parking occupancy), e.g. 2026-11-24T10:00:00+01:00; default: each request\'s arrival time', clockText);
  addCommonOptions(cmd, ['json', 'log']).action(async (opts: SimOptions) => {
    if (opts.world !== undefined && opts.stopIds !== undefined) {
      throw new ConfigError('--stop-ids: applies only to a generated world, not with --world', '--stop-ids');
    }
    if (opts.localIdBase !== undefined && opts.stopIds !== 'local') {
      throw new ConfigError('--local-id-base: applies only with --stop-ids local', '--local-id-base');
    }
    const log = loggerFor(opts);
    // Loaded when the command runs: a nightly run's process does not carry it (memory, start-up).
    const { startSimulator } = await import('../sim/server.js');
    const sim = await startSimulator({
      host: opts.host,
      port: opts.port,
      seed: opts.seed,
      size: opts.size,
      ...(opts.world ? { worldDir: opts.world } : {}),
      ...(opts.faults ? { faults: opts.faults } : {}),
      ...(opts.today ? { today: opts.today } : {}),
      dialect: opts.dialect,
      ...(opts.stopIds ? { stopIds: opts.stopIds } : {}),
      ...(opts.localIdBase !== undefined ? { localIdBase: opts.localIdBase } : {}),
      coordOrder: opts.coordOrder,
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
      ...(opts.change !== undefined ? { change: opts.change } : {}),
    });
    log.info(`EFA simulator listening on ${sim.url}/ (${sim.world.pinCount} pins); Ctrl-C stops it`, {
      bbox: sim.world.bbox,
    });
    // Before the address line, which scripts wait for.
    const stopped = untilStopped(() => sim.stop());
    // Scripts read the address from stdout: the URL alone, or with --json what the world holds.
    process.stdout.write(opts.json ? `${JSON.stringify({ url: sim.url, pins: sim.world.pinCount, bbox: sim.world.bbox })}\n` : `${sim.url}\n`);
    await stopped;
  });
}
