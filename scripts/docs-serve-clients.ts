/**
 * Rewrites the "clients × what works" table of docs/analysts/serve.md (between its serve-clients markers)
 * from a run of the conformance suite's clients (test/serve/clients) against the built CLI's `serve` on a
 * fresh `demo` warehouse:
 *   npm run docs:serve-clients
 * test/serve/clients/clients.test.ts fails when the table differs from what its own run found. Every client
 * must run here (its runtime installed, as .ci/run does): a table with a client left out is not written.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshBuild } from '../test/helpers/fresh-build.js';
import { runClient, startConformance } from '../test/serve/clients/conformance.js';
import { CLIENTS } from '../test/serve/clients/programs.js';
import { CLIENTS_DOC, clientsMarkdown, failures, withClientsTable, type ClientResult } from '../test/serve/clients/results.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<number> {
  ensureFreshBuild();
  const conformance = await startConformance();
  const results: ClientResult[] = [];
  try {
    for (const spec of CLIENTS) {
      const result = await runClient(spec, conformance);
      results.push(result);
      const wrong = failures(result);
      process.stdout.write(`${spec.label}: ${result.skipped ? `skipped (${result.skipped})` : wrong.length === 0 ? `${result.checks.length} checks right` : `${wrong.length} wrong`}\n`);
      for (const line of wrong) process.stdout.write(`  ${line}\n`);
    }
  } finally {
    await conformance.stop();
  }
  const skipped = results.filter((r) => r.skipped !== undefined);
  if (skipped.length > 0) {
    process.stderr.write(`docs:serve-clients: not written: ${skipped.map((r) => `${r.label} (${r.skipped})`).join('; ')}\n`);
    return 1;
  }
  const path = join(root, CLIENTS_DOC);
  const current = await readFile(path, 'utf8');
  const text = withClientsTable(current, clientsMarkdown(results));
  if (text === current) process.stdout.write(`docs:serve-clients: ${CLIENTS_DOC} is up to date\n`);
  else {
    await writeFile(path, text);
    process.stdout.write(`docs:serve-clients: wrote ${CLIENTS_DOC}\n`);
  }
  return 0;
}

process.exitCode = await main();
