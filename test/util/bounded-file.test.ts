import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendBounded, FileTargetError, readBounded, writeBounded } from '../../src/util/bounded-file.js';

/** The file targets of a run (OpenLineage, metrics, report): never a FIFO or a device waited on (issue 45, point 4). */
describe('bounded file targets', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-bounded-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends to and rewrites a regular file, creating it when missing', async () => {
    const file = join(dir, 'events.ndjson');
    await appendBounded(file, 'a\n', 5_000);
    await appendBounded(file, 'b\n', 5_000);
    expect(await readFile(file, 'utf8')).toBe('a\nb\n');
    await writeBounded(file, 'c\n', 5_000);
    expect(await readBounded(file, 5_000, 1024)).toBe('c\n');
    expect(await readBounded(join(dir, 'absent'), 5_000, 1024)).toBeUndefined();
  });

  it('refuses a FIFO nobody reads at once, and a FIFO or a device anyway, naming what it is', async () => {
    const fifo = join(dir, 'nobody-reads.fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(appendBounded(fifo, 'x\n', 5_000)).rejects.toThrow(FileTargetError);
    await expect(writeBounded(fifo, 'x\n', 5_000)).rejects.toThrow(/is a FIFO \(named pipe\) nobody reads/);
    // Opened for reading without a writer, a FIFO opens (O_NONBLOCK) and is refused as what it is.
    await expect(readBounded(fifo, 5_000, 1024)).rejects.toThrow(/is a FIFO \(named pipe\); it is written to a regular file/);
    await expect(writeBounded('/dev/null', 'x', 5_000, 'the report')).rejects.toThrow(/\/dev\/null is a character device; the report is written to a regular file/);
    await expect(appendBounded(dir, 'x', 5_000)).rejects.toThrow(/EISDIR/);
  });
});
