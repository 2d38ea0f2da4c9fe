import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../../src/util/process-alive.js';

/*
 * One temporary root per test run (issue 30: interrupted runs left 40–65 MB efa-sync-* folders behind).
 * Global setup creates it and points TMPDIR at it, so every mkdtemp(tmpdir()) of a test file, a helper
 * or a spawned CLI lands inside; teardown removes it whole. A run that was killed cannot tear down: the
 * next run sweeps the roots whose owning process is gone, and the old per-file leftovers by age.
 */

export const RUN_ROOT_PREFIX = 'efa-sync-test-run-';
/** The file in a run root that names the process owning it. */
const OWNER_FILE = 'owner.json';
/** Per-file leftovers of suites before the run root (PGlite copies and templates), swept when older than this. */
const LEGACY_PREFIXES = ['efa-sync-test-', 'efa-sync-pglite-template-'];
const LEGACY_AGE_MS = 24 * 3600_000;

/** Whether a process with this pid exists on this machine: the one check src/ makes for its lock files. */
export { processAlive };

export async function createRunRoot(parent: string): Promise<string> {
  const root = await mkdtemp(join(parent, RUN_ROOT_PREFIX));
  await writeFile(join(root, OWNER_FILE), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
  return root;
}

/**
 * Removes what earlier, interrupted test runs left in `parent`: run roots whose owner is no longer
 * alive (a root without a readable owner only once it is older than a day), and legacy per-file
 * folders older than a day. Another run's live root is never touched. Returns the paths removed.
 */
export async function sweepStaleTemp(parent: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const path = join(parent, name);
    let stale = false;
    if (name.startsWith(RUN_ROOT_PREFIX)) {
      const owner = await readFile(join(path, OWNER_FILE), 'utf8').then((t) => (JSON.parse(t) as { pid?: unknown }).pid, () => undefined);
      stale = typeof owner === 'number' ? !processAlive(owner) : await olderThan(path, now, LEGACY_AGE_MS);
    } else if (LEGACY_PREFIXES.some((p) => name.startsWith(p))) {
      stale = await olderThan(path, now, LEGACY_AGE_MS);
    }
    if (!stale) continue;
    await rm(path, { recursive: true, force: true }).then(() => removed.push(path), () => undefined);
  }
  return removed;
}

async function olderThan(path: string, now: number, ms: number): Promise<boolean> {
  const s = await stat(path).catch(() => undefined);
  return s !== undefined && s.isDirectory() && now - s.mtimeMs > ms;
}
