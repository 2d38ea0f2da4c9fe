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

  const removeShare = (share: number): number => {
    const stops = [...sim.world.allPins(['STOP', 'POI_POINT'])];
    const removed = stops.slice(0, Math.floor(stops.length * share));
    for (const s of removed) sim.world.removePin(s.key);
    return removed.length;
  };

  it('holds a mass deletion (exit 3, the message names the run id to accept), releases exactly that run with --accept-deletions <run id>, and never a later night with it', async () => {
    const one = await night();
    expect(one.code, one.stderr.slice(-2000)).toBe(0);
    const removed = removeShare(0.5);

    const held = await night();
    expect(held.code).toBe(3);
    expect(held.summary.heldDeletions).toEqual([expect.objectContaining({ relation: 'pins', wouldMark: removed })]);
    expect(held.stderr).toContain(`--accept-deletions ${held.summary.runId}`);

    const released = await night(['--accept-deletions', held.summary.runId]);
    expect(released.code, released.stderr.slice(-2000)).toBe(0);
    expect(released.summary.heldDeletions).toEqual([]);
    expect(released.summary.relations['pins']?.deleted).toBe(removed);
    // Loud: the bypass is a warning naming the relation and the count.
    expect(released.stderr).toMatch(new RegExp(`"level":"warn".*the mass-deletion guard was bypassed: pins: ${removed} of \\d+ live rows marked gone`));

    // The same id left in a CronJob: the next night's mass deletion is held all the same.
    const more = removeShare(0.5);
    const later = await night([], { EFA_ACCEPT_DELETIONS: held.summary.runId });
    expect(later.code, later.stderr.slice(-2000)).toBe(3);
    expect(later.summary.heldDeletions).toEqual([expect.objectContaining({ relation: 'pins', wouldMark: more })]);
    expect(later.stderr).toContain(`run ${held.summary.runId} is not job accept's last finished run`);
  }, 600_000);

  it('releases no more than the run held: a night that would mark more than the checked count stays held', async () => {
    removeShare(0.5);
    const held = await night();
    expect(held.code).toBe(3);
    const first = held.summary.heldDeletions.find((h) => h.relation === 'pins')?.wouldMark ?? 0;
    expect(first).toBeGreaterThan(0);
    removeShare(0.5);
    const bigger = await night(['--accept-deletions', held.summary.runId]);
    expect(bigger.code).toBe(3);
    expect(bigger.stderr).toMatch(new RegExp(`run ${held.summary.runId} held ${first}, this run would mark \\d+: more than was checked`));
    expect(bigger.summary.relations['pins']?.deleted).toBe(0);
  }, 600_000);

  it('takes EFA_ACCEPT_DELETIONS like the flag (1 = the deprecated bare flag, warned), documents it in --help, refuses a value that is no run id', async () => {
    const help = await runBuiltCli(['run', '--help'], clean);
    expect(help.stdout).toContain('--accept-deletions [run-id]');
    expect(help.stdout).toContain('env: EFA_ACCEPT_DELETIONS');
    const bad = await runBuiltCli(['run', jobPath, '--db', db.url], { ...clean, EFA_ACCEPT_DELETIONS: 'yesplease' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('EFA_ACCEPT_DELETIONS: expected the id of the run');
    removeShare(0.5);
    const held = await night([], { EFA_ACCEPT_DELETIONS: '0' });
    expect(held.code, JSON.stringify(held.summary)).toBe(3);
    const released = await night([], { EFA_ACCEPT_DELETIONS: '1' });
    expect(released.code, released.stderr.slice(-2000)).toBe(0);
    expect(released.summary.relations['pins']?.deleted).toBeGreaterThan(0);
    expect(released.stderr).toContain('EFA_ACCEPT_DELETIONS without a run id is deprecated');
    // The bare flag before the job file (an order earlier releases documented) still parses as bare.
    removeShare(0.5);
    const bare = await runBuiltCli(['run', '--accept-deletions', jobPath, '--db', db.url, '--json'], clean, 240_000);
    expect(bare.code, bare.stderr.slice(-2000)).toBe(0);
    expect(bare.stderr).toContain('--accept-deletions without a run id is deprecated');
  }, 600_000);
});
