/**
 * Rewrites the exit-code table of every document that carries one (between its exit-codes markers) from
 * the one table in src/errors.ts:
 *   npm run docs:exit-codes              regenerate
 *   npm run docs:exit-codes -- --check   exit 1 when a document is out of date (CI)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_CODE_DOCS, withExitCodeTables } from '../src/cli/exit-code-table.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(args: readonly string[]): Promise<number> {
  const check = args.includes('--check');
  let stale = 0;
  for (const doc of EXIT_CODE_DOCS) {
    const path = join(root, doc);
    const current = await readFile(path, 'utf8');
    const { text, blocks } = withExitCodeTables(current);
    if (blocks === 0) {
      process.stderr.write(`docs:exit-codes: ${doc} has no exit-codes block: add the two markers where its table goes\n`);
      return 1;
    }
    if (text === current) continue;
    stale++;
    if (check) process.stderr.write(`docs:exit-codes: ${doc} is out of date with src/errors.ts\n`);
    else {
      await writeFile(path, text);
      process.stdout.write(`docs:exit-codes: wrote ${doc}\n`);
    }
  }
  if (check && stale > 0) {
    process.stderr.write('docs:exit-codes: run `npm run docs:exit-codes` and commit the result\n');
    return 1;
  }
  if (stale === 0) process.stdout.write('docs:exit-codes: every exit-code table is up to date\n');
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
