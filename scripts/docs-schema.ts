/**
 * Writes docs/schema.md from the catalog of a freshly migrated embedded database:
 *   npm run docs:schema              regenerate
 *   npm run docs:schema -- --check   exit 1 when docs/schema.md is out of date (CI)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { openDb } from '../src/db/open.js';
import { migrate } from '../src/db/migrate.js';
import { generateSchemaDoc, schemaDocPath } from './schema-docs/index.js';

async function main(args: readonly string[]): Promise<number> {
  const check = args.includes('--check');
  const db = await openDb('pglite:memory');
  let doc: Awaited<ReturnType<typeof generateSchemaDoc>>;
  try {
    await migrate(db);
    doc = await generateSchemaDoc(db);
  } finally {
    await db.close();
  }
  if (doc.undocumented.length > 0) {
    process.stderr.write(`docs:schema: no comment on ${doc.undocumented.join(', ')}: add COMMENT ON in a new sql/ migration\n`);
    return 1;
  }
  if (!check) {
    await writeFile(schemaDocPath, doc.text);
    process.stdout.write(`docs:schema: wrote ${schemaDocPath}\n`);
    return 0;
  }
  const current = await readFile(schemaDocPath, 'utf8').catch(() => '');
  if (current === doc.text) {
    process.stdout.write('docs:schema: docs/schema.md is up to date\n');
    return 0;
  }
  process.stderr.write('docs:schema: docs/schema.md is out of date with sql/: run `npm run docs:schema` and commit the result\n');
  return 1;
}

process.exitCode = await main(process.argv.slice(2));
