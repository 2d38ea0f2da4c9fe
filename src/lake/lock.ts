import { readFileSync, rmSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LockedError } from '../db/lock.js';
import { processAlive } from '../util/process-alive.js';

/**
 * One writer per lake folder. Two exports into one folder would each clear the other's `_tmp/` build
 * folders and rewrite the other's manifest: the second fails half-way with an error about a file it
 * never named, or one's partitions vanish from the manifest. The lock is a file created exclusively
 * (O_EXCL: of two processes exactly one creates it) holding the writer's pid, host and command; a
 * second export exits 4 naming it. A file whose pid is gone on this host (a killed export) is
 * taken over.
 */

export const LAKE_LOCK = '.efa-sync-lake.lock';

interface LakeLockInfo {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly command: string;
}

export interface LakeLock {
  /** Removes the lock file if it is still this process's (async, at the end of an export). */
  release(): Promise<void>;
  /** The same, synchronously: for a process about to exit on a signal. */
  releaseNow(): void;
}

function parse(text: string): Partial<LakeLockInfo> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Partial<LakeLockInfo>) : {};
  } catch {
    return {};
  }
}

/** Takes the lake folder's lock, or throws LockedError (exit 4) naming the export that holds it. */
export async function lockLake(dir: string): Promise<LakeLock> {
  const file = join(dir, LAKE_LOCK);
  const info: LakeLockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: `efa-sync ${process.argv.slice(2).join(' ')}` };
  // Twice at most: once more after removing the file of a writer that is gone.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(file, 'wx', 0o644);
      try {
        await handle.writeFile(JSON.stringify(info));
      } finally {
        await handle.close();
      }
      const ours = (text: string): boolean => parse(text).pid === process.pid && parse(text).since === info.since;
      return {
        release: async () => {
          if (ours(await readFile(file, 'utf8').catch(() => ''))) await rm(file, { force: true });
        },
        releaseNow: () => {
          let text = '';
          try {
            text = readFileSync(file, 'utf8');
          } catch {
            return;
          }
          if (ours(text)) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = parse(await readFile(file, 'utf8').catch(() => ''));
    // A file being written this instant reads empty: its writer is alive, so it is held.
    const gone = holder.pid !== undefined && holder.host === hostname() && !processAlive(holder.pid);
    if (!gone || attempt > 0) {
      const who = holder.pid === undefined ? 'another export (its lock file is being written)' : `pid ${holder.pid} on ${holder.host ?? '?'} since ${holder.since ?? '?'} (${holder.command ?? 'efa-sync export --lake'})`;
      throw new LockedError(
        `--lake ${dir}: another export is writing this lake: ${who}; exit 4, run again when it has finished` +
          (holder.host !== undefined && holder.host !== hostname() ? ` (a lock of another host is never taken over: remove ${file} if that export is gone)` : ''),
      );
    }
    // The writer is gone (killed): its lock is stale and taken over.
    await rm(file, { force: true });
  }
  throw new LockedError(`--lake ${dir}: another export took the lock at the same moment; exit 4, run again when it has finished`);
}
