/** schema/deployment.schema.json is generated from the zod schema (npm run schema:deployment) and checks the entries an editor opens. */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { deploymentSchemaPath, renderDeploymentJsonSchema } from '../../scripts/deployment-schema.js';
import { DEPLOYMENTS_DIR, loadDeployments } from '../../src/deployments/load.js';

describe('schema/deployment.schema.json', () => {
  it('is current with src/deployments/schema.ts', async () => {
    expect(await readFile(deploymentSchemaPath, 'utf8')).toBe(renderDeploymentJsonSchema());
  });

  it('accepts every entry, and refuses an unknown key and a missing source list', async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderDeploymentJsonSchema()) as object);
    for (const entry of loadDeployments()) {
      const raw = JSON.parse(await readFile(`${DEPLOYMENTS_DIR}/${entry.id}.json`, 'utf8')) as Record<string, unknown>;
      expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({ ...raw, baseURL: raw['baseUrl'] })).toBe(false);
      const { sources: _sources, ...withoutSources } = raw;
      expect(validate(withoutSources)).toBe(false);
    }
  });
});
