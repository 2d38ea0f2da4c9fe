import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every runtime dependency is loaded by src/ (issue 45 point 10: `pg-gateway` was installed with every
 * copy and imported nowhere). A package counts as loaded where src/ names it as a module specifier: an
 * `import … from`, a dynamic `import()`, a `require()` / `require.resolve()` (leaflet's files are
 * inlined into the report), or Node's `--import` (tsx, for TS job files and workers).
 */
const root = join(import.meta.dirname, '..', '..');

async function sourceText(): Promise<string> {
  const files = (await readdir(join(root, 'src'), { recursive: true })).filter((f) => f.endsWith('.ts'));
  return (await Promise.all(files.map((f) => readFile(join(root, 'src', f), 'utf8')))).join('\n');
}

function escape(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('runtime dependencies', () => {
  it('are each loaded by src/', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const source = await sourceText();
    const unused = Object.keys(pkg.dependencies ?? {}).filter((name) => {
      const specifier = `['"]${escape(name)}(?:/[^'"]*)?['"]`;
      const loaded = new RegExp(`(?:from\\s+|import\\(\\s*|require(?:\\.resolve)?\\(\\s*|'--import',\\s*)${specifier}`);
      return !loaded.test(source);
    });
    expect(unused).toEqual([]);
  });
});
