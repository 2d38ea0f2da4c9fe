import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A worker thread's entry `name` (without extension) beside the module at `base` (its
 * import.meta.url): the compiled .js when built, or the .ts source through tsx where efa-sync runs
 * from its sources (the tests under vitest), which a worker does not inherit from its parent.
 */
export function workerEntry(name: string, base: string): { url: URL; execArgv: string[] } {
  const js = new URL(`./${name}.js`, base);
  if (existsSync(fileURLToPath(js))) return { url: js, execArgv: [] };
  return { url: new URL(`./${name}.ts`, base), execArgv: ['--import', 'tsx'] };
}
