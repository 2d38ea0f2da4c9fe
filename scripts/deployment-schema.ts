/**
 * Writes schema/deployment.schema.json, the JSON Schema of a catalogue entry (deployments/<id>.json),
 * from the zod schema that validates it, so an editor checks an entry as it is typed:
 *   npm run schema:deployment              regenerate
 *   npm run schema:deployment -- --check   exit 1 when the committed file is out of date
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { deploymentSchema } from '../src/deployments/schema.js';

export const deploymentSchemaPath = fileURLToPath(new URL('../schema/deployment.schema.json', import.meta.url));

export function renderDeploymentJsonSchema(): string {
  const generated = z.toJSONSchema(deploymentSchema, { io: 'input', unrepresentable: 'any' });
  const document = {
    ...generated,
    title: 'efa-sync deployment catalogue entry',
    description:
      'One public EFA deployment: base URL, dialect, operations, coverage, time zone, polite rate, and for every fact its source. ' +
      'Generated from src/deployments/schema.ts by `npm run schema:deployment`; do not edit by hand.',
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

async function main(args: readonly string[]): Promise<number> {
  const text = renderDeploymentJsonSchema();
  const current = await readFile(deploymentSchemaPath, 'utf8').catch(() => '');
  if (current === text) return 0;
  if (args.includes('--check')) {
    process.stderr.write('schema:deployment: schema/deployment.schema.json is out of date: run `npm run schema:deployment` and commit it\n');
    return 1;
  }
  await writeFile(deploymentSchemaPath, text);
  process.stdout.write(`schema:deployment: wrote ${deploymentSchemaPath}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
