import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { ConfigError } from '../errors.js';
import type { WriteSink } from './target.js';

/** Bytes written in order to a sink, with backpressure, and an error that names --out. */
export interface ByteOut {
  put(chunk: Uint8Array | string): Promise<void>;
  /** Flushes (and closes, unless it is standard output, which stays open for the process). */
  end(): Promise<void>;
  destroy(): void;
}

/** An error of the output stream as one line: ENOSPC on /dev/full, EPIPE when the reader of a pipe left. */
function outputError(name: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOSPC' ? 'no space left on the device' : code === 'EPIPE' ? 'the reader closed the pipe before the end' : (error as Error).message;
  return new ConfigError(`--out ${name}: writing failed (${why})`, 'out');
}

export function byteOut(sink: WriteSink): ByteOut {
  // 0600 for a file this creates (a FlatGeobuf's side file holds the data too); a temp file made by target.ts keeps its own mode.
  // A file that exists already (the temporary file target.ts created) is opened without O_CREAT: a
  // signal handler that removes it while this open is still in flight on libuv's threadpool must not
  // see it created again behind its back (it was, once, under load).
  const stream: Writable = sink.kind === 'path' ? createWriteStream(sink.path, { mode: 0o600, flags: existsSync(sink.path) ? 'r+' : 'w' }) : sink.stream;
  const name = sink.kind === 'path' ? sink.path : sink.name;
  const own = sink.kind === 'path' || sink.own;
  const failed = new Promise<never>((_, reject) => stream.once('error', (e) => reject(outputError(name, e))));
  failed.catch(() => undefined);
  return {
    put: async (chunk) => {
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), failed]);
    },
    end: async () => {
      if (own) {
        stream.end();
        await Promise.race([once(stream, 'finish'), failed]);
      } else {
        await Promise.race([new Promise<void>((resolve, reject) => stream.write('', (e) => (e ? reject(outputError(name, e)) : resolve()))), failed]);
      }
    },
    destroy: () => {
      if (own) stream.destroy();
    },
  };
}
