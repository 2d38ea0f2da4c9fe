import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';

/** What a client's socket may hold unsent in memory; beyond it, answers wait in a file. */
export const SPOOL_MEMORY_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Backpressure for a client that does not read: PGlite builds a whole answer before it is sent and
 * cannot be paused, so an answer the socket cannot take now goes to a temporary file and is sent from
 * there as the client reads. serve's memory per client is then bounded by SPOOL_MEMORY_BYTES, not by
 * the size of the answers it left unread (ten clients not reading 50 MB answers held 1.1 GB before).
 * The file is removed when it has been sent, or when the client leaves; the unsent bytes are bounded
 * by `maxBytes` (serve --max-spool): a client past it is disconnected, the others unaffected.
 */
export class Spool {
  private dir: string | undefined;
  private fd: number | undefined;
  private written = 0;
  private sent = 0;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    /** Unsent bytes (in memory and in the file) beyond which `onOver` is called instead of writing. */
    private readonly maxBytes: number,
    private readonly onOver: () => void,
  ) {
    socket.on('drain', () => this.pump());
  }

  write(bytes: Buffer): void {
    if (this.closed || this.socket.destroyed) return;
    if (this.socket.writableLength + this.written - this.sent + bytes.length > this.maxBytes) {
      // Nothing of it is written: the file never grows past the bound (a client that never reads held 977 MB before).
      this.close();
      this.onOver();
      return;
    }
    if (this.fd === undefined && this.socket.writableLength + bytes.length <= SPOOL_MEMORY_BYTES) {
      this.socket.write(bytes);
      return;
    }
    if (this.fd === undefined) {
      this.dir = mkdtempSync(join(tmpdir(), 'efa-sync-serve-'));
      this.fd = openSync(join(this.dir, 'answers'), 'w+', 0o600);
    }
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at, this.written + at);
    this.written += bytes.length;
    this.pump();
  }

  /** Sends from the file while the socket takes it. */
  private pump(): void {
    if (this.fd === undefined || this.closed) return;
    while (this.sent < this.written && this.socket.writableLength < SPOOL_MEMORY_BYTES && !this.socket.destroyed) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, this.written - this.sent));
      const read = readSync(this.fd, chunk, 0, chunk.length, this.sent);
      if (read <= 0) break;
      this.sent += read;
      this.socket.write(read === chunk.length ? chunk : chunk.subarray(0, read));
    }
    if (this.sent >= this.written) this.removeFile();
  }

  private removeFile(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.fd = undefined;
    this.dir = undefined;
    this.written = 0;
    this.sent = 0;
  }

  /** The client left: what was not sent is dropped with its file. */
  close(): void {
    this.closed = true;
    this.removeFile();
  }
}
