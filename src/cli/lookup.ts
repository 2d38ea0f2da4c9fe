import type { Command } from 'commander';
import { dialectFor, type DialectName } from '../efa/dialects/index.js';
import { createEfaClient } from '../efa/index.js';
import { ConfigError } from '../errors.js';
import { createFetchTransport, createRequestScheduler } from '../http/index.js';
import { formatTable } from '../util/table.js';
import { terminalText } from '../util/terminal-text.js';
import { addCommonOptions, baseUrlOption, commonOption, loggerFor, positiveNumber, type CommonOptions } from './common.js';

interface LookupOptions extends CommonOptions {
  max: number;
  dialect: DialectName;
}

export function registerLookup(program: Command): void {
  const cmd = program
    .command('lookup <text>')
    .description('StopFinder from the command line: print matching stops with their ids')
    .addOption(baseUrlOption('EFA base URL, the part before XML_STOPFINDER_REQUEST'))
    .option('--max <n>', 'at most this many hits', positiveNumber('--max'), 20)
    .addOption(commonOption('dialect', 'response dialect of the deployment').default('json'));
  addCommonOptions(cmd, ['json', 'log']).action(async (text: string, opts: LookupOptions) => {
    const baseUrl = opts.baseUrl;
    if (!baseUrl) throw new ConfigError('lookup needs --base-url or $EFA_BASE_URL (e.g. http://127.0.0.1:8080/efa)', 'base-url');
    loggerFor(opts);
    const client = createEfaClient({
      baseUrl,
      transport: createFetchTransport(),
      scheduler: createRequestScheduler({ requestsPerSecond: 2, concurrency: 1, retries: 2, timeoutMs: 15_000 }),
      dialect: dialectFor(opts.dialect),
    });
    const result = await client.stopFinder({ type: 'any', name: text, anyMaxSizeHitList: opts.max });
    const hits = [...result.records].sort((a, b) => Number(b.isBest) - Number(a.isBest) || b.matchQuality - a.matchQuality);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(hits)}\n`);
      return;
    }
    if (hits.length === 0) {
      process.stdout.write(`no match for "${terminalText(text)}"\n`);
      return;
    }
    const rows = hits.map((l) => [
      l.isBest ? '*' : '',
      l.id,
      l.name,
      l.type,
      String(l.matchQuality),
      l.coord ? `${l.coord.lon.toFixed(5)},${l.coord.lat.toFixed(5)}` : '',
    ]);
    process.stdout.write(formatTable(['best', 'id', 'name', 'type', 'quality', 'lon,lat'], rows));
  });
}
