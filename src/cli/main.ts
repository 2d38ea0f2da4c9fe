#!/usr/bin/env node
/**
 * The command's entry: V8's compile cache first, then the program (program.ts). Without it every
 * start compiled the CLI's few hundred modules from source, ~0.1 s of the ~0.6 s before a command
 * does anything, on every night and every snapshot; with it (Node >= 22.1, module.enableCompileCache)
 * later starts read them compiled. It is kept in efa-sync's cache folder (EFA_SYNC_CACHE_DIR, else
 * XDG_CACHE_HOME/efa-sync, else ~/.cache/efa-sync), keyed by Node's version and each file's content;
 * a folder that cannot be written only means no cache, and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
import module from 'node:module';
import { join } from 'node:path';
import { cacheDirCandidates } from '../db/pglite-cache.js';

type WithCompileCache = { enableCompileCache?: (dir?: string) => unknown };
const [cacheDir] = cacheDirCandidates();
try {
  if (cacheDir !== undefined) (module as WithCompileCache).enableCompileCache?.(join(cacheDir, 'compile'));
} catch {
  // Only slower: the program below runs the same without a cache.
}
await import('./program.js');
