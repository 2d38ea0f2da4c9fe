import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../util/package-root.js';
import { deploymentSchema, type Deployment } from './schema.js';

/** The catalogue's folder in the package: one JSON file per deployment, named after its id. */
export const DEPLOYMENTS_DIR = join(packageRoot, 'deployments');

let cached: readonly Deployment[] | undefined;

/**
 * Every entry of the catalogue, validated, in id order. A file that fails its schema, or whose name is
 * not its id, fails the whole load: the catalogue ships with the package, so a broken entry is a bug.
 */
export function loadDeployments(dir = DEPLOYMENTS_DIR): readonly Deployment[] {
  if (dir === DEPLOYMENTS_DIR && cached) return cached;
  const entries = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const path = join(dir, file);
      const result = deploymentSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')) as unknown);
      // Formatted here, not by job/load's formatter: job/load reads the catalogue (a job's `deployment`), so importing it back would be a cycle.
      if (!result.success) throw new ConfigError(result.error.issues.map((i) => `${path}: ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n'), 'deployment');
      if (`${result.data.id}.json` !== file) throw new ConfigError(`${path}: id "${result.data.id}" must be the file's name`, 'deployment');
      return result.data;
    });
  if (dir === DEPLOYMENTS_DIR) cached = entries;
  return entries;
}

/** One entry by id; an unknown id is a configuration error that names the closest ids. */
export function findDeployment(id: string, entries: readonly Deployment[] = loadDeployments()): Deployment {
  const found = entries.find((d) => d.id === id);
  if (found) return found;
  const near = entries.filter((d) => d.id.includes(id) || id.includes(d.id.slice(3))).map((d) => d.id);
  const hint = near.length > 0 ? `: did you mean ${near.slice(0, 3).join(', ')}?` : ': efa-sync deployments lists them';
  throw new ConfigError(`deployment "${id}" is not in the catalogue${hint}`, 'deployment');
}
