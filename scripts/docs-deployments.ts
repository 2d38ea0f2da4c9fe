/**
 * Rewrites, from deployments/*.json, the catalogue list of docs/deployments.md and the table of
 * docs/dialects.md that links each dialect fact to the entries relying on it (each between its markers):
 *   npm run docs:deployments              regenerate
 *   npm run docs:deployments -- --check   exit 1 when a page is out of date (CI)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withCatalogue, withDialectLinks } from '../src/deployments/catalogue-page.js';
import { loadDeployments } from '../src/deployments/load.js';
import type { Deployment } from '../src/deployments/schema.js';

const docsDir = fileURLToPath(new URL('../docs/', import.meta.url));

/** Each generated page: its path under docs/ and how its block is rendered. */
export const GENERATED_PAGES: readonly { readonly name: string; readonly render: (doc: string, entries: readonly Deployment[]) => string | undefined }[] = [
  { name: 'deployments.md', render: withCatalogue },
  { name: 'dialects.md', render: withDialectLinks },
];

/** The page as the catalogue renders it today. */
export async function renderGeneratedPage(name: string): Promise<{ readonly current: string; readonly rendered: string }> {
  const page = GENERATED_PAGES.find((p) => p.name === name);
  if (!page) throw new Error(`docs:deployments: no generated page ${name}`);
  const current = await readFile(`${docsDir}${name}`, 'utf8');
  const rendered = page.render(current, loadDeployments());
  if (rendered === undefined) throw new Error(`docs/${name} has no generated block: add its two markers where it goes`);
  return { current, rendered };
}

async function main(args: readonly string[]): Promise<number> {
  let stale = 0;
  for (const { name } of GENERATED_PAGES) {
    const { current, rendered } = await renderGeneratedPage(name);
    if (rendered === current) continue;
    stale += 1;
    if (args.includes('--check')) process.stderr.write(`docs:deployments: docs/${name} is out of date with deployments/: run \`npm run docs:deployments\` and commit it\n`);
    else {
      await writeFile(`${docsDir}${name}`, rendered);
      process.stdout.write(`docs:deployments: wrote docs/${name}\n`);
    }
  }
  if (stale === 0) process.stdout.write('docs:deployments: every generated page is up to date\n');
  return args.includes('--check') && stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
