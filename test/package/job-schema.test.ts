import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSchemaPath, renderJobJsonSchema } from '../../scripts/job-schema.js';

interface JsonSchemaObject {
  properties?: Record<string, JsonSchemaObject>;
  additionalProperties?: boolean;
  required?: string[];
  anyOf?: JsonSchemaObject[];
}

describe('the JSON Schema of job files', () => {
  it('is what src/job/schema.ts generates today (run `npm run schema:job` after changing the job schema)', async () => {
    expect(await readFile(jobSchemaPath, 'utf8')).toBe(renderJobJsonSchema());
  });

  it('describes the input shape: defaulted keys optional, unknown keys refused, as efa-sync run checks them', () => {
    const schema = JSON.parse(renderJobJsonSchema()) as JsonSchemaObject;
    // baseUrl may come from --base-url or $EFA_BASE_URL alone: not required in the file.
    expect(schema.required?.sort()).toEqual(['name', 'rateLimit', 'region', 'sweeps']);
    expect(schema.properties?.['baseUrl']).toBeDefined();
    expect(schema.additionalProperties).toBe(false);
    const rateLimit = schema.properties?.['rateLimit'];
    expect(rateLimit?.required).toEqual(['requestsPerSecond']);
    expect(Object.keys(schema.properties?.['sweeps']?.properties ?? {}).sort()).toEqual(['addInfo', 'coord', 'opArea', 'parking', 'servingLines', 'stopFinder', 'vehicles']);
  });

  it('is what the example JSON jobs point their editors at, and they use only keys it knows', async () => {
    const file = join('jobs', 'demo.json');
    const job = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(resolve(dirname(file), String(job['$schema']))).toBe(jobSchemaPath);
    const schema = JSON.parse(await readFile(jobSchemaPath, 'utf8')) as JsonSchemaObject;
    expect(Object.keys(job).filter((k) => !(k in (schema.properties ?? {})))).toEqual([]);
  });
});
