import { mkdir } from 'node:fs/promises';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The environment variable that moves what the embedded database caches (tests, read-only homes). */
export const CACHE_DIR_ENV = 'EFA_SYNC_CACHE_DIR';

/**
 * Where the embedded database keeps what it derives once per installed version (the lean PostGIS
 * bundle, the migrated template): $EFA_SYNC_CACHE_DIR, else $XDG_CACHE_HOME/efa-sync, else
 * ~/.cache/efa-sync; a home that cannot be written (a container's read-only one) falls back to the
 * temporary directory. Undefined when nothing can be written: the caller then does without.
 */
export async function pgliteCacheDir(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const dir of cacheDirCandidates(env)) {
    if (await mkdir(dir, { recursive: true }).then(() => true, () => false)) return dir;
  }
  return undefined;
}

/** The cache folders efa-sync tries, in order (src/cli/main.ts keeps the CLI's compile cache in the first). */
export function cacheDirCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const given = env[CACHE_DIR_ENV];
  return given ? [given] : [join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'efa-sync'), join(tmpdir(), `efa-sync-cache-${userName()}`)];
}

function userName(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9_-]/g, '_');
  } catch {
    return String(process.getuid?.() ?? 'user');
  }
}
