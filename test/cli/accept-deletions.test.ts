import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

const clean = { DATABASE_URL: undefined, EFA_BASE_URL: undefined, EFA_ACCEPT_DELETIONS: undefined, EFA_LOG_FORMAT: 'json' };

/**
 * A held night and its release, through the built CLI a scheduler runs: the guard's own warning
 * tells the operator to run with --accept-deletions, so the flag must exist there.
 */
describe('--accept-deletions through the built CLI', () => {
  let sim: Simulator;
  let dir: string;
  let db: TestDbUrl;
  let jobPath: string;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 11, size: 1500 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-accept-'));
    db = await createTestDbUrl();
    jobPath = join(dir, 'accept.json');
    await writeFile(
      jobPath,
      JSON.stringify({
        name: 'accept',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 200, concurrency: 4 },
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 300 } },
      }),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const night = async (extra: readonly string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const r = await runBuiltCli(['run', jobPath, '--db', db.url, '--json', ...extra], { ...clean, ...env }, 240_000);
    expect(r.stdout, r.stderr.slice(-2000)).not.toBe('');
    return { code: r.code, stderr: r.stderr, summary: JSON.parse(r.stdout) as RunSummary };
  };

  it('holds a mass deletion (exit 3, the message names the flag), then marks it gone with --accept-deletions', async () => {
    const one = await night();
    expect(one.code, one.stderr.slice(-2000)).toBe(0);
    const stops = [...sim.world.allPins(['STOP', 'POI_POINT'])];
    const removed = stops.slice(0, Math.floor(stops.length / 2));
    for (const s of removed) sim.world.removePin(s.key);

    const held = await night();
    expect(held.code).toBe(3);
    expect(held.summary.heldDeletions).toEqual([expect.objectContaining({ relation: 'pins', wouldMark: removed.length })]);
    expect(held.stderr).toContain('--accept-deletions');

    const released = await night(['--accept-deletions']);
    expect(released.code, released.stderr.slice(-2000)).toBe(0);
    expect(released.summary.heldDeletions).toEqual([]);
    expect(released.summary.relations['pins']?.deleted).toBe(removed.length);
  }, 600_000);

  it('takes EFA_ACCEPT_DELETIONS like the flag, and documents it in --help', async () => {
    const help = await runBuiltCli(['run', '--help'], clean);
    expect(help.stdout).toContain('--accept-deletions');
    expect(help.stdout).toContain('env: EFA_ACCEPT_DELETIONS');
    const stops = [...sim.world.allPins(['STOP', 'POI_POINT'])];
    for (const s of stops.slice(0, Math.floor(stops.length / 2))) sim.world.removePin(s.key);
    const held = await night([], { EFA_ACCEPT_DELETIONS: '0' });
    expect(held.code, JSON.stringify(held.summary)).toBe(3);
    const released = await night([], { EFA_ACCEPT_DELETIONS: '1' });
    expect(released.code, released.stderr.slice(-2000)).toBe(0);
    expect(released.summary.relations['pins']?.deleted).toBeGreaterThan(0);
  }, 600_000);
});
