import { join } from 'node:path';
import type { Db } from '../../src/db/connect.js';
import { packageRoot } from '../../src/util/package-root.js';
import { readCatalog, undocumented } from './catalog.js';
import { renderSchemaDoc } from './render.js';

export { exampleQueries } from './examples.js';
export { readCatalog, undocumented } from './catalog.js';
export { renderSchemaDoc } from './render.js';

export const schemaDocPath = join(packageRoot, 'docs', 'schema.md');

/** docs/schema.md for a migrated database, and what in schema efa has no comment. */
export async function generateSchemaDoc(db: Db): Promise<{ text: string; undocumented: string[] }> {
  const catalog = await readCatalog(db);
  return { text: renderSchemaDoc(catalog), undocumented: undocumented(catalog) };
}
