import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jobsDocPath, renderJobJsonSchema, renderJobsDoc } from '../../scripts/job-schema.js';
import { jobSchema } from '../../src/job/schema.js';

/**
 * An editor explains a job key only with the description the JSON Schema carries (VS Code shows it on
 * hover and in completion). The schema is generated from the zod schema, so a key added there without
 * `.describe()` would ship unexplained: this walks every property the generated schema has, in every
 * nested object, union branch and array item, and names the ones without a description.
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every property path (`sweeps.coord.types`) of a schema, and those without a non-empty description. */
function propertiesOf(root: unknown): { all: string[]; undescribed: string[] } {
  const all: string[] = [];
  const undescribed: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, path));
    if (!isNode(node)) return;
    for (const [key, value] of Object.entries(node)) {
      // A default or const is a value, not a schema: an object in it has no properties to describe.
      if (key === 'default' || key === 'const') continue;
      if (key !== 'properties' || !isNode(value)) {
        walk(value, path);
        continue;
      }
      for (const [name, property] of Object.entries(value)) {
        const at = path === '' ? name : `${path}.${name}`;
        const description = isNode(property) ? property['description'] : undefined;
        all.push(at);
        if (typeof description !== 'string' || description.trim() === '') undescribed.push(at);
        walk(property, at);
      }
    }
  };
  walk(root, '');
  return { all, undescribed };
}

describe('the job JSON Schema explains every key', () => {
  const generated = JSON.parse(renderJobJsonSchema()) as Node;

  it('has a description on every property, nested ones included', () => {
    const { all, undescribed } = propertiesOf(generated);
    // The walk reaches the deep keys too (a walk that found nothing would pass on an empty list).
    expect(all).toEqual(expect.arrayContaining(['sweeps.coord.parking.objectTypes', 'sweeps.vehicles.detail.budget', 'sweeps.addInfo.line.project', 'history.keepDays']));
    expect(all.length).toBeGreaterThan(100);
    expect(undescribed).toEqual([]);
  });

  it('carries the default of every key that has one', () => {
    const properties = generated['properties'] as Record<string, Node>;
    expect(properties['maxGonePercent']?.['default']).toBe(5);
    expect(properties['dialect']?.['default']).toBe('json');
    const rateLimit = properties['rateLimit']?.['properties'] as Record<string, Node>;
    expect(rateLimit['concurrency']?.['default']).toBe(4);
    expect(rateLimit['timeoutMs']?.['default']).toBe(30_000);
    // Checked against the zod schema itself: what it fills in for a minimal job is what the JSON says.
    const parsed = jobSchema.parse({
      name: 'x',
      baseUrl: 'https://efa.example.org/efa',
      region: { bbox: [9, 48, 9.1, 48.1] },
      rateLimit: { requestsPerSecond: 1 },
      sweeps: {},
    });
    expect(parsed.limits).toEqual((properties['limits']?.['default'] as Node | undefined) ?? {});
    expect(parsed.maxGonePercent).toBe(properties['maxGonePercent']?.['default']);
    expect(parsed.rateLimit.retries).toBe(rateLimit['retries']?.['default']);
  });

  it('docs/jobs.md lists every key with that text and default (run `npm run schema:job` when it fails)', async () => {
    const doc = await readFile(jobsDocPath, 'utf8');
    expect(doc === (await renderJobsDoc()), 'docs/jobs.md: its table of job keys differs from src/job/schema.ts').toBe(true);
    for (const key of ['`maxGonePercent` | number | `5`', '`sweeps.servingLines.refreshEveryNights` | integer | `7`', '`snapshots.retentionDays` | integer | `90`']) expect(doc).toContain(key);
  });

  it('names a property without a description, however deep', () => {
    const schema = {
      type: 'object',
      properties: {
        described: { type: 'string', description: 'fine' },
        outer: { description: 'fine', anyOf: [{ type: 'object', properties: { inner: { type: 'number' } } }] },
        list: { description: 'fine', type: 'array', items: { type: 'object', properties: { item: { type: 'string', description: ' ' } } } },
      },
    };
    expect(propertiesOf(schema).undescribed).toEqual(['outer.inner', 'list.item']);
  });
});
