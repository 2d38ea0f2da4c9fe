/**
 * Writes schema/job.schema.json, the JSON Schema of job files, from the zod schema that validates them,
 * and the table of every job key in docs/jobs.md from that schema:
 *   npm run schema:job              regenerate both
 *   npm run schema:job -- --check   exit 1 when either committed file is out of date
 * Editors that read `$schema` (VS Code, JetBrains) then complete and check job files as they are typed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { jobSchema } from '../src/job/schema.js';
import { withJobOptionsTable } from './job-options-table.js';

export const jobSchemaPath = fileURLToPath(new URL('../schema/job.schema.json', import.meta.url));
export const jobsDocPath = fileURLToPath(new URL('../docs/jobs.md', import.meta.url));

/** docs/jobs.md with its table of job keys as the schema renders it today. */
export async function renderJobsDoc(): Promise<string> {
  const current = await readFile(jobsDocPath, 'utf8');
  const rendered = withJobOptionsTable(current, JSON.parse(renderJobJsonSchema()) as Record<string, unknown>);
  if (rendered === undefined) throw new Error('docs/jobs.md has no job-options block: add its two markers where the table goes');
  return rendered;
}

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
  const outputs = [
    { path: jobSchemaPath, name: join('schema', 'job.schema.json'), text: renderJobJsonSchema() },
    { path: jobsDocPath, name: join('docs', 'jobs.md'), text: await renderJobsDoc() },
  ];
  let stale = 0;
  for (const { path, name, text } of outputs) {
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current === text) continue;
    stale++;
    if (args.includes('--check')) process.stderr.write(`schema:job: ${name} is out of date with src/job/schema.ts: run \`npm run schema:job\` and commit it\n`);
    else {
      await writeFile(path, text);
      process.stdout.write(`schema:job: wrote ${path}\n`);
    }
  }
  return args.includes('--check') && stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
