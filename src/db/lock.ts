import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ExitCode } from '../errors.js';

/** Another run of the same job (or, on PGlite, another process on the same database) is running: exit 4. */
export class LockedError extends Error {
  override name = 'LockedError';
  readonly exitCode = ExitCode.locked;
}

export interface LockInfo {
  pid: number;
  host: string;
  since: string;
  command: string;
  job?: string;
  runId?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is one process per data directory: a second one opening it would corrupt it. A lock file
 * beside the directory keeps a second efa-sync out (exit 4, naming the holder); a file left by a
 * killed process (its pid is gone) is taken over, which is what lets a crashed run resume.
 */
export async function lockDataDir(dataDir: string): Promise<{ update(info: Partial<LockInfo>): Promise<void>; release(): Promise<void> }> {
  const file = `${dataDir}.efa-sync.lock`;
  if (existsSync(file)) {
    const holder = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Partial<LockInfo>;
    if (holder.pid && holder.pid !== process.pid && holder.host === hostname() && alive(holder.pid)) {
      const what = holder.job ? `run ${holder.runId ?? '?'} of job ${holder.job}` : holder.command ?? 'efa-sync';
      throw new LockedError(`pglite:${dataDir} is in use by ${what} (pid ${holder.pid} since ${holder.since ?? '?'}); PGlite allows one process at a time`);
    }
  }
  let info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: process.argv.slice(2).join(' ') };
  await writeFile(file, JSON.stringify(info));
  return {
    update: async (more) => {
      info = { ...info, ...more };
      await writeFile(file, JSON.stringify(info));
    },
    release: async () => {
      const current = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Partial<LockInfo>;
      if (current.pid === process.pid) await rm(file, { force: true });
    },
  };
}
