/**
 * Writes schema/job.schema.json, the JSON Schema of job files, from the zod schema that validates them:
 *   npm run schema:job              regenerate
 *   npm run schema:job -- --check   exit 1 when the committed file is out of date
 * Editors that read `$schema` (VS Code, JetBrains) then complete and check job files as they are typed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { jobSchema } from '../src/job/schema.js';

export const jobSchemaPath = fileURLToPath(new URL('../schema/job.schema.json', import.meta.url));

/**
 * The *input* shape: what a job file may say before defaults apply, so a key with a default is
 * optional here just as it is for `efa-sync run`. Refinements zod cannot express (bbox order,
 * positions inside ±180/±90) are still checked when the job is loaded.
 */
export function renderJobJsonSchema(): string {
  const generated = z.toJSONSchema(jobSchema, { io: 'input', unrepresentable: 'any' });
  // baseUrl may come from --base-url or $EFA_BASE_URL alone (a Compose or Kubernetes deployment sets
  // it per environment): an editor must not flag a job file that leaves it out.
  const required = Array.isArray(generated.required) ? generated.required.filter((key) => key !== 'baseUrl') : generated.required;
  const document = {
    ...generated,
    required,
    title: 'efa-sync job',
    description:
      'One efa-sync job: the EFA deployment (baseUrl), the region to tile, the rate limit and the operations to sweep. ' +
      'Generated from src/job/schema.ts by `npm run schema:job`; do not edit by hand.',
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

async function main(args: readonly string[]): Promise<number> {
  const text = renderJobJsonSchema();
  if (!args.includes('--check')) {
    await writeFile(jobSchemaPath, text);
    process.stdout.write(`schema:job: wrote ${jobSchemaPath}\n`);
    return 0;
  }
  const current = await readFile(jobSchemaPath, 'utf8').catch(() => '');
  if (current === text) return 0;
  process.stderr.write(`schema:job: ${join('schema', 'job.schema.json')} is out of date with src/job/schema.ts: run \`npm run schema:job\` and commit it\n`);
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
