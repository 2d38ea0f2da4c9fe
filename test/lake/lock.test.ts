import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockedError } from '../../src/db/lock.js';
import { LAKE_LOCK, openLake } from '../../src/lake/index.js';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

/**
 * One writer per lake folder (issue 45, point 5): two exports into one folder at once made one fail
 * half-way with an --out the user never gave. Now the second exits 4 naming the first, and the lock
 * of an export that was killed is taken over.
 */
describe('the lake folder lock', () => {
  let dir: string;
  let db: TestDbUrl;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-lake-lock-'));
    db = await createTestDbUrl();
  });
  afterAll(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('of two takers at the same moment exactly one holds it; released, it can be taken again', async () => {
    const lake = join(dir, 'race');
    const taken = await Promise.allSettled([openLake(lake), openLake(lake)]);
    const held = taken.filter((t) => t.status === 'fulfilled');
    const refused = taken.filter((t) => t.status === 'rejected');
    expect(held).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(LockedError);
    await (held[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof openLake>>>).value.release();
    expect(await readdir(lake)).toEqual([]);
    const again = await openLake(lake);
    await again.release();
  });

  it('a second export --lake into a folder being written exits 4 naming the writer; a dead writer\'s lock is taken over (built CLI)', async () => {
    const lake = join(dir, 'cli');
    const holder = await openLake(lake);
    try {
      const r = await runBuiltCli(['export', '--db', db.url, '--lake', lake, '--log-format', 'json']);
      expect(r.code, r.stderr).toBe(4);
      const line = jsonLines(r.stderr).find((l) => l['level'] === 'error');
      expect(line).toMatchObject({ error: 'LockedError', exitCode: 4 });
      expect(String(line?.['msg'])).toContain(`another export is writing this lake: pid ${process.pid}`);
    } finally {
      await holder.release();
    }
    // A process that has exited: its pid is gone, as a killed export's is.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(join(lake, LAKE_LOCK), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), since: new Date().toISOString(), command: 'efa-sync export --lake' }));
    const taken = await runBuiltCli(['export', '--db', db.url, '--lake', lake, '--json', '--log-format', 'json']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(await readdir(lake)).not.toContain(LAKE_LOCK);
  }, 120_000);
});
