import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Writes and reads of the files a run reports to (OpenLineage's file:// target, the metrics file, the
 * HTML report), bounded as an HTTP target is. A plain open of a FIFO that nobody reads blocks a
 * thread of libuv's pool until a reader comes, maybe never; a run then ends, and its process hangs
 * on that thread, deaf to SIGTERM. So such a file is opened with O_NONBLOCK (a FIFO without a reader
 * fails at once, ENXIO), anything but a regular file is refused with a reason, and every write races
 * a timer: whatever a slow disk or a hung network mount does, the caller gets an answer in time.
 */

/** The bound of a file target's write: the same as an HTTP target's (OpenLineage's EMIT_TIMEOUT_MS). */
export const FILE_TARGET_TIMEOUT_MS = 5_000;

/** A file target that is not a regular file, or did not answer in time: the message says which and why. */
export class FileTargetError extends Error {
  override name = 'FileTargetError';
}

const kindOf = (mode: number): string => {
  const type = mode & constants.S_IFMT;
  return type === constants.S_IFIFO ? 'a FIFO (named pipe)'
    : type === constants.S_IFCHR ? 'a character device'
    : type === constants.S_IFBLK ? 'a block device'
    : type === constants.S_IFSOCK ? 'a socket'
    : type === constants.S_IFDIR ? 'a directory'
    : 'not a regular file';
};

/** File operations given up on (past their bound) that may still hold a thread of libuv's pool. */
let abandoned = 0;

/**
 * How many file operations were given up on: each still holds the event loop open, so a command that
 * ends with one left must exit explicitly (program.ts) instead of waiting for the file system.
 */
export function fileWritesAbandoned(): number {
  return abandoned;
}

/** `work` within `timeoutMs`, else a FileTargetError; the timer never keeps the process alive. */
async function bounded<T>(what: string, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandoned += 1;
      reject(new FileTargetError(`${what}: no answer from the file system within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    timer.unref();
  });
  // A write that lands after the bound is left to finish on its own; its outcome is nobody's.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function openRegular(path: string, flags: number, purpose: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    // ENXIO: a FIFO with no reader (O_NONBLOCK on a write open); refused as such, not waited on.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new FileTargetError(`${path} is a FIFO (named pipe) nobody reads; give a regular file`);
    throw error;
  }
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw new FileTargetError(`${path} is ${kindOf(st.mode)}; ${purpose} is written to a regular file`);
  }
  return handle;
}

/** Appends `text` to the regular file `path` (created when missing) within `timeoutMs`. */
export function appendBounded(path: string, text: string, timeoutMs: number, purpose = 'it'): Promise<void> {
  return bounded(`appending to ${path}`, timeoutMs, (async () => {
    const handle = await openRegular(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, purpose);
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
  })());
}

/** Replaces the content of the regular file `path` (created when missing) within `timeoutMs`. */
export function writeBounded(path: string, text: string, timeoutMs: number, purpose = 'it'): Promise<void> {
  return bounded(`writing ${path}`, timeoutMs, (async () => {
    // Truncated only once it is known to be a regular file.
    const handle = await openRegular(path, constants.O_WRONLY | constants.O_CREAT, purpose);
    try {
      await handle.truncate(0);
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
  })());
}

/**
 * The text of the regular file `path`, at most `maxBytes` of it, within `timeoutMs`; undefined when it
 * does not exist. Anything but a regular file is a FileTargetError.
 */
export function readBounded(path: string, timeoutMs: number, maxBytes: number, purpose = 'it'): Promise<string | undefined> {
  return bounded(`reading ${path}`, timeoutMs, (async () => {
    let handle: FileHandle;
    try {
      handle = await openRegular(path, constants.O_RDONLY, purpose);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const buffer = Buffer.alloc(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  })());
}
