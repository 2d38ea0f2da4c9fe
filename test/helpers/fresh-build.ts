import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * The tests run the CLI as a scheduler does, built (test/helpers/cli.ts, built-cli.ts): when a file
 * under src/ is newer than the build (an edit since `npm install`), `npm run build` runs once before
 * any test, so a test never runs yesterday's CLI. A fresh clone's build (npm's prepare) is current
 * and costs nothing here.
 */
export function ensureFreshBuild(): void {
  const built = (() => {
    try {
      return statSync(join(root, 'dist/src/cli/main.js')).mtimeMs;
    } catch {
      return 0;
    }
  })();
  if (built >= newestSource(join(root, 'src'))) return;
  process.stderr.write('efa-sync tests: src/ is newer than dist/, running npm run build first\n');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status}): the tests run the built CLI`);
}
