import { randomBytes } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { chmod, copyFile, lstat, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { ConfigError, errorText } from '../errors.js';

/**
 * Where `--out` points, and how the export gets its bytes there without breaking what is there:
 *
 * - `-`: standard output, for the formats that stream (bytes written in order, never revisited).
 * - a character device (/dev/null, /dev/tty), a FIFO, or any path under /dev or /proc (/dev/stdout,
 *   /dev/fd/3, even when they lead to a regular file a shell opened): written in place, streaming
 *   formats only. Nothing is created beside it, nothing renamed over it.
 * - a regular file, or a path that does not exist yet: written to a temporary file beside it
 *   (`.<name>.<pid>.<hex>.tmp`, created with the mode of the file it replaces), then renamed over it,
 *   so the name never holds half a file. The existing file's mode is kept (0600 stays 0600). A file
 *   with other hard links is not replaced but rewritten in place once the temporary file is complete,
 *   so every link sees the new content (that last copy is not atomic).
 * - a symbolic link: followed; the file it leads to is written as above, and the link stays a link.
 *   A link to nothing is refused.
 * - a directory, a block device or a socket: refused, naming --out.
 */
export type OutTarget =
  | { readonly kind: 'stdout'; readonly shown: string }
  | { readonly kind: 'device'; readonly path: string; readonly shown: string }
  | { readonly kind: 'file'; readonly path: string; readonly shown: string; readonly mode: number | undefined; readonly links: number };

/** Temporary files being written now: what a signal handler removes before the process exits. */
const pendingTemps = new Set<string>();

/** Removes every temporary file an unfinished export holds (synchronously: called from a signal handler). */
export function removePendingTemps(): void {
  // Kept marked: a second call (after in-flight file operations landed) removes them again.
  for (const tmp of pendingTemps) rmSync(tmp, { force: true });
}

/** Marks a writer's own side file for removal on a signal; the returned function unmarks it. */
export function holdTemp(path: string): () => void {
  pendingTemps.add(path);
  return () => {
    pendingTemps.delete(path);
  };
}

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

export async function resolveOutTarget(out: string): Promise<OutTarget> {
  if (out === '-') return { kind: 'stdout', shown: 'standard output' };
  if (out.trim() === '') throw new ConfigError('--out: empty; name a file, or - for standard output', 'out');
  const path = resolve(out);
  // Standard output by name: the process's own descriptor 1, which may be a socket no path can reopen.
  if (['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1', `/proc/${process.pid}/fd/1`].includes(path)) return { kind: 'stdout', shown: path };
  const link = await lstat(path).catch((e: unknown) => {
    if (code(e) === 'ENOENT') return undefined;
    throw new ConfigError(`--out ${out}: cannot be examined (${errorText(e)})`, 'out');
  });
  if (!link) {
    const dir = dirname(path);
    const dirStat = await stat(dir).catch(() => undefined);
    if (!dirStat?.isDirectory()) throw new ConfigError(`--out: the directory ${dir} does not exist; create it first`, 'out');
    return { kind: 'file', path, shown: path, mode: undefined, links: 1 };
  }
  const target = link.isSymbolicLink()
    ? await stat(path).catch((e: unknown) => {
        throw new ConfigError(`--out ${out}: a symbolic link to nothing (${code(e) ?? errorText(e)}); point it at a file or name another path`, 'out');
      })
    : link;
  if (target.isDirectory()) throw new ConfigError(`--out ${out}: a directory; name a file in it, e.g. --out ${join(out, 'export.gpkg')}`, 'out');
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N: a descriptor someone opened; its file is theirs, written in place.
  const viaDescriptor = /^\/(dev|proc)\//.test(path);
  if (target.isCharacterDevice() || target.isFIFO() || (viaDescriptor && target.isFile())) return { kind: 'device', path, shown: path };
  if (!target.isFile()) throw new ConfigError(`--out ${out}: neither a file, a character device nor a FIFO (a block device or a socket); name a file`, 'out');
  const real = link.isSymbolicLink() ? await realpath(path) : path;
  return { kind: 'file', path: real, shown: real === path ? path : `${path} -> ${real}`, mode: target.mode & 0o7777, links: target.nlink };
}

/** Where a writer puts its bytes: a path of its own to write (seekable), or a stream to write in order. */
export type WriteSink = { readonly kind: 'path'; readonly path: string } | { readonly kind: 'stream'; readonly stream: Writable; readonly name: string; readonly own: boolean };

export interface PreparedTarget {
  readonly sink: WriteSink;
  /** Puts the finished bytes under --out (renames the temporary file, or nothing for a stream). */
  commit(): Promise<void>;
  /** Removes what an unfinished export wrote (the temporary file), never the target itself. */
  discard(): Promise<void>;
}

/** The sink a writer writes to for this target; for a file, a temporary one beside it with its mode. */
export async function prepareTarget(target: OutTarget): Promise<PreparedTarget> {
  if (target.kind === 'stdout') {
    return { sink: { kind: 'stream', stream: process.stdout, name: 'standard output', own: false }, commit: async () => undefined, discard: async () => undefined };
  }
  if (target.kind === 'device') {
    // 'w' truncates a regular file a /dev/fd path leads to, and does nothing to a device or FIFO.
    const stream = createWriteStream(target.path, { flags: 'w' });
    return { sink: { kind: 'stream', stream, name: target.path, own: true }, commit: async () => undefined, discard: async () => undefined };
  }
  // Beside the target, so the final rename stays on one file system; a dot name no tool picks up.
  const tmp = join(dirname(target.path), `.${basename(target.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // Marked before it exists: a signal between its creation and the mark would otherwise leave it behind.
  pendingTemps.add(tmp);
  // Created now with the mode of the file it replaces (0600 stays 0600 from the first byte on).
  const handle = await open(tmp, 'wx', target.mode ?? 0o666).catch((e: unknown) => {
    pendingTemps.delete(tmp);
    throw new ConfigError(`--out ${target.shown}: cannot create a file in ${dirname(target.path)} (${code(e) ?? errorText(e)})`, 'out');
  });
  await handle.close();
  const done = async (): Promise<void> => {
    pendingTemps.delete(tmp);
    await rm(tmp, { force: true });
  };
  return {
    sink: { kind: 'path', path: tmp },
    commit: async () => {
      // The umask took bits off the mode open() asked for: set it exactly as it was (copyFile carries it over too).
      if (target.mode !== undefined) await chmod(tmp, target.mode);
      if (target.links > 1) {
        // Renaming would leave the other links on the old content: copy into the same inode instead.
        await copyFile(tmp, target.path);
        await done();
        return;
      }
      await rename(tmp, target.path);
      pendingTemps.delete(tmp);
    },
    discard: done,
  };
}
