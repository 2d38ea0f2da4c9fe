import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { filterDeployments, parseLonLat, type DeploymentMatch } from '../deployments/filter.js';
import { coverageAreaKm2, coverageBBox } from '../deployments/geo.js';
import { findDeployment, loadDeployments } from '../deployments/load.js';
import type { Deployment } from '../deployments/schema.js';
import { formatTable } from '../util/table.js';
import { addCommonOptions, type CommonOptions } from './common.js';

interface ListOptions extends CommonOptions {
  country?: string;
  near?: string;
  search?: string;
}

const formats = (entry: Deployment): string => [...new Set(Object.values(entry.operations).flat())].join(' ');

function listText(matches: readonly DeploymentMatch[], near: boolean): string {
  if (matches.length === 0) return 'no deployment matches: efa-sync deployments lists them all\n';
  const header = ['id', 'name', 'regions', 'dialect', 'base URL', ...(near ? ['km'] : [])];
  const rows = matches.map(({ entry, distanceKm }) => [
    entry.id, entry.name, (entry.regions ?? entry.countries).join(' '), entry.dialect, entry.baseUrl,
    ...(near ? [distanceKm === 0 ? 'inside' : (distanceKm ?? 0).toFixed(0)] : []),
  ]);
  return `${formatTable(header, rows)}\n${matches.length} deployment${matches.length === 1 ? '' : 's'}; efa-sync deployments show <id> for one with its sources, efa-sync init <id> for a job\n`;
}

/** One entry in words: every fact, the sources it was read from, and its coverage's bbox and area. */
export function showText(entry: Deployment): string {
  const bbox = coverageBBox(entry).map((v) => v.toFixed(4)).join(', ');
  const lines = [
    `${entry.id}: ${entry.name}`,
    `  countries   ${entry.countries.join(' ')}${entry.regions ? ` (${entry.regions.join(' ')})` : ''}`,
    `  base URL    ${entry.baseUrl}`,
    ...(entry.endpointChoice ? [`              ${entry.endpointChoice}`] : []),
    `  dialect     ${entry.dialect}`,
    `  operations  ${Object.entries(entry.operations).map(([op, f]) => `${op} (${f.join(', ')})`).join('; ')}`,
    ...(entry.paths ? [`  paths       ${Object.entries(entry.paths).map(([op, p]) => `${op}=${p}`).join(' ')}`] : []),
    ...(entry.headers ? [`  headers     ${Object.entries(entry.headers).map(([h, v]) => `${h}: ${typeof v === 'string' ? v : `$${v.env}`}`).join(', ')}`] : []),
    `  time zone   ${entry.timeZone}`,
    ...(entry.globalIds ? [`  global ids  ${entry.globalIds}`] : []),
    ...(entry.languages ? [`  languages   ${entry.languages.join(' ')}`] : []),
    ...(entry.dataLicence ? [`  data        ${entry.dataLicence}`] : []),
    ...(entry.termsUrl ? [`  terms       ${entry.termsUrl}`] : []),
    `  polite rate ${entry.rateLimit.requestsPerSecond} requests/s, ${entry.rateLimit.concurrency} in flight`,
    `  coverage    bbox [${bbox}], ${Math.round(coverageAreaKm2(entry)).toLocaleString('en')} km², ${entry.coverage.coordinates[0]?.length ?? 0} vertices`,
    ...(entry.notes ?? []).map((n) => `  note        ${n}`),
    '  endpoints',
    ...entry.endpoints.map((e) => `    ${e.url}${e.seen ? ` (${e.seen})` : ''}  ← ${e.source}`),
    '  sources',
    ...Object.entries(entry.sources).flatMap(([key, refs]) => refs.map((r, i) => `    ${i === 0 ? key.padEnd(12) : ' '.repeat(12)}${r}`)),
  ];
  return `${lines.join('\n')}\n`;
}

export function registerDeployments(program: Command): void {
  const cmd = program
    .command('deployments')
    .description('list the public EFA deployments efa-sync knows (base URL, dialect, coverage, sources); filter by --country, --near or --search')
    .option('--country <code>', 'ISO 3166-1 or 3166-2 code: DE, AT, DE-BW')
    .option('--near <lon,lat>', 'deployments whose coverage contains the point (smallest first), or the nearest ones')
    .option('--search <text>', 'words in the id, name, regions or base URL');
  addCommonOptions(cmd, ['json']).action((opts: ListOptions) => {
    const near = opts.near === undefined ? undefined : parseLonLat(opts.near);
    if (opts.near !== undefined && near === undefined) throw new ConfigError(`--near: expected <lon>,<lat> (longitude first), got "${opts.near}"`, '--near');
    const matches = filterDeployments(loadDeployments(), { country: opts.country, search: opts.search, near });
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(matches.map(({ entry, distanceKm }) => ({ ...entry, ...(distanceKm === undefined ? {} : { distanceKm }) })))}\n`);
      return;
    }
    process.stdout.write(listText(matches, near !== undefined));
  });
  const show = cmd.command('show <id>').description('one deployment: every fact with its sources, and its coverage as bbox and area');
  addCommonOptions(show, ['json']).action((id: string, opts: CommonOptions) => {
    const entry = findDeployment(id);
    if (opts.json) process.stdout.write(`${JSON.stringify({ ...entry, coverageBBox: coverageBBox(entry), coverageAreaKm2: coverageAreaKm2(entry) })}\n`);
    else process.stdout.write(showText(entry));
  });
}
