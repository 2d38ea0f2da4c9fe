import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ROOT_PREFIX, sweepStaleTemp } from '../helpers/temp-root.js';

/** A pid no process has: past the kernel's pid_max. */
const deadPid = 4_194_305;

describe('test temp folders: one root per run, interrupted runs swept (issue 30)', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'sweep-'));
  });
  afterAll(async () => rm(parent, { recursive: true, force: true }));

  it('puts the temp folders of this run in one run root that global setup created', () => {
    const root = tmpdir();
    expect(basename(root).startsWith(RUN_ROOT_PREFIX), root).toBe(true);
    expect(existsSync(join(root, 'owner.json'))).toBe(true);
    expect(dirname(parent)).toBe(root);
  });

  it('removes a root whose owner died and old legacy folders; keeps a live root and young folders', async () => {
    const dead = join(parent, `${RUN_ROOT_PREFIX}dead`);
    const live = join(parent, `${RUN_ROOT_PREFIX}live`);
    const oldCopy = join(parent, 'efa-sync-test-old');
    const youngCopy = join(parent, 'efa-sync-test-young');
    const serveSocket = join(parent, 'efa-sync-serve-old');
    for (const d of [dead, live, oldCopy, youngCopy, serveSocket]) await mkdir(join(d, 'base'), { recursive: true });
    await writeFile(join(dead, 'owner.json'), JSON.stringify({ pid: deadPid }));
    await writeFile(join(live, 'owner.json'), JSON.stringify({ pid: process.pid }));
    // Every folder dated by the process's clock: a new folder takes the file system's, which may be another
    // (a test run with the clock moved ahead would see a young folder a year old).
    const now = new Date();
    const twoDaysAgo = new Date(now.getTime() - 48 * 3600_000);
    for (const d of [dead, live, youngCopy]) await utimes(d, now, now);
    for (const d of [oldCopy, serveSocket]) await utimes(d, twoDaysAgo, twoDaysAgo);
    const removed = await sweepStaleTemp(parent);
    expect(removed.sort()).toEqual([dead, oldCopy].sort());
    for (const kept of [live, youngCopy, serveSocket]) expect(existsSync(kept), kept).toBe(true);
  });
});
