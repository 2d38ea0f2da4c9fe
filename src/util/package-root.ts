import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (where package.json, sql/ and jobs/ live), from src/ under tsx/vitest or dist/src/ when built. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'sql'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('efa-sync: cannot find the package root (package.json + sql/)');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();
