/**
 * The table of every job key in docs/jobs.md, rendered from the generated JSON Schema (so from the zod
 * schema's own descriptions and defaults): one row per key, nested keys by their dotted path. Written by
 * `npm run schema:job` with the schema itself, and checked by its `--check`, so the docs cannot name a key,
 * default or meaning the code does not have.
 */

export const JOB_OPTIONS_BEGIN = '<!-- job-options:begin (generated from src/job/schema.ts by `npm run schema:job`; do not edit) -->';
export const JOB_OPTIONS_END = '<!-- job-options:end -->';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A short type: `integer`, `one of json, legacy`, `array of string`, `"all" or array of …`. */
function typeOf(node: Node): string {
  if ('const' in node) return JSON.stringify(node['const']);
  if (Array.isArray(node['enum'])) return `one of ${(node['enum'] as unknown[]).map(String).join(', ')}`;
  const branches = (node['anyOf'] ?? node['oneOf']) as unknown;
  if (Array.isArray(branches)) return [...new Set(branches.filter(isNode).map(typeOf))].join(' or ');
  const type = node['type'];
  if (type === 'array' && Array.isArray(node['prefixItems'])) return `[${(node['prefixItems'] as unknown[]).filter(isNode).map(typeOf).join(', ')}]`;
  if (type === 'array') return isNode(node['items']) ? `array of ${typeOf(node['items'])}` : 'array';
  if (type === 'string' && typeof node['format'] === 'string') return `string (${node['format']})`;
  if (type === 'object' && isNode(node['propertyNames']) && Array.isArray(node['propertyNames']['enum'])) {
    return `object: ${(node['propertyNames']['enum'] as unknown[]).map(String).join(', ')}`;
  }
  return typeof type === 'string' ? type : 'any';
}

interface Row {
  readonly key: string;
  readonly type: string;
  readonly default: string;
  readonly meaning: string;
}

/**
 * Rows of every property, depth first, through nested objects, union branches, array items and records.
 * A key that several branches of a union define (GeoJSON's `type` in a Polygon and a MultiPolygon) is one
 * row with their types joined; a key inside a branch is never "required", since another branch may stand
 * in for it (a region is a bbox or a geojson).
 */
export function jobOptionRows(schema: Node): Row[] {
  const rows = new Map<string, Row>();
  const walk = (node: Node, path: string, inBranch: boolean): void => {
    const properties = isNode(node['properties']) ? node['properties'] : {};
    const required = new Set(Array.isArray(node['required']) && !inBranch ? (node['required'] as string[]) : []);
    for (const [name, property] of Object.entries(properties)) {
      if (!isNode(property)) continue;
      const key = path === '' ? name : `${path}.${name}`;
      const fallback = 'default' in property ? `\`${JSON.stringify(property['default'])}\`` : required.has(name) ? 'required' : '';
      const earlier = rows.get(key);
      const type = earlier && earlier.type !== typeOf(property) ? `${earlier.type} or ${typeOf(property)}` : typeOf(property);
      rows.set(key, { key, type, default: earlier?.default ?? fallback, meaning: earlier?.meaning ?? String(property['description'] ?? '') });
      walk(property, key, false);
    }
    for (const branch of [...((node['anyOf'] as unknown[] | undefined) ?? []), ...((node['oneOf'] as unknown[] | undefined) ?? [])]) if (isNode(branch)) walk(branch, path, true);
    if (isNode(node['items'])) walk(node['items'], `${path}[]`, inBranch);
    if (isNode(node['additionalProperties'])) walk(node['additionalProperties'], `${path}.<name>`, inBranch);
  };
  walk(schema, '', false);
  return [...rows.values()];
}

/** The Markdown table, without the markers. */
export function jobOptionsMarkdown(schema: Node): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| key | type | default | meaning |',
    '|---|---|---|---|',
    ...jobOptionRows(schema).map((r) => `| \`${r.key}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.meaning)} |`),
  ].join('\n');
}

/** `markdown` with the block between the markers replaced by the table; undefined when it has no block. */
export function withJobOptionsTable(markdown: string, schema: Node): string | undefined {
  const begin = markdown.indexOf(JOB_OPTIONS_BEGIN);
  const end = markdown.indexOf(JOB_OPTIONS_END, begin);
  if (begin < 0 || end < 0) return undefined;
  return `${markdown.slice(0, begin + JOB_OPTIONS_BEGIN.length)}\n${jobOptionsMarkdown(schema)}\n${markdown.slice(end)}`;
}
