import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RequestLogEntry, type Simulator } from '../../src/sim/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { runCli } from '../helpers/cli.js';
import { dbComparable, truthComparable } from '../helpers/compare.js';
import { createTestDbUrl, openTestDb, type TestDb, type TestDbUrl } from '../helpers/db.js';
import { inlineJob } from '../helpers/job.js';

const silent = createLogger({ level: 'error', format: 'json' });
const region = [9.12, 48.74, 9.22, 48.8] as const;
const today = '2026-11-22';

/** The most requests that arrived within any one-second window. */
function maxPerSecond(log: readonly RequestLogEntry[]): number {
  const times = log.map((e) => e.at).sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('a run against a flaky, rate-limiting server', () => {
  let sim: Simulator;
  let t: TestDb;
  let summary: RunSummary;
  const rps = 25;
  beforeAll(async () => {
    // 10% 5xx, and 429 + Retry-After: 1 whenever more than 15 requests arrive within a second.
    sim = await startSimulator({ port: 0, seed: 11, size: 1500, today, faults: 'error5xx=0.1,rate429=15:1,seed=5' });
    t = await openTestDb();
    const loaded = inlineJob({
      name: 'flaky',
      baseUrl: sim.url,
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: rps, concurrency: 4, retries: 8 },
      sweeps: {
        coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 80 },
        servingLines: { forStops: true },
        addInfo: { publicationStatus: 'current' },
      },
    });
    summary = await runJob({ loaded, db: t.db, log: silent, today });
  }, 300_000);
  afterAll(async () => {
    await t?.dispose();
    await sim?.stop();
  });

  it('finishes complete despite 5xx and 429 answers', async () => {
    const faults = sim.requestLog.filter((e) => e.status >= 500).length;
    const limited = sim.requestLog.filter((e) => e.status === 429).length;
    expect(faults).toBeGreaterThan(0);
    expect(limited).toBeGreaterThan(0);
    expect(summary.status).toBe('succeeded');
    const truth = truthComparable(sim.world.truth([...region], { types: ['STOP', 'POI_POINT'], date: today }));
    const stored = await dbComparable(t.db);
    expect(stored.pins).toEqual(truth.pins);
    expect(stored.stopLines).toEqual(truth.stopLines);
    expect(stored.notices).toEqual(truth.notices);
  });

  it("never exceeds the job's requestsPerSecond over any one-second window", () => {
    expect(sim.requestLog.length).toBeGreaterThan(3 * rps);
    expect(maxPerSecond(sim.requestLog)).toBeLessThanOrEqual(rps);
  });

  it('waits at least Retry-After before sending a request again after a 429', () => {
    const log = sim.requestLog;
    let checked = 0;
    log.forEach((entry, i) => {
      if (entry.status !== 429) return;
      const again = log.slice(i + 1).find((e) => e.path === entry.path && e.query === entry.query);
      if (!again) return;
      checked += 1;
      expect(again.at - entry.at).toBeGreaterThanOrEqual(1000);
    });
    expect(checked).toBeGreaterThan(0);
  });
});

describe('a tile that can never be fetched', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 11, size: 800, today, faults: 'failbox=9.17:48.77' });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-job-'));
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ends partial with exit 3 and names the tile', async () => {
    const job = {
      name: 'failbox',
      baseUrl: 'http://127.0.0.1:1/never-used',
      region: { bbox: [...region] },
      rateLimit: { requestsPerSecond: 50, concurrency: 2, retries: 1, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 500 }, addInfo: { publicationStatus: 'current' } },
    };
    const file = join(dir, 'failbox.json');
    await writeFile(file, JSON.stringify(job));
    const result = await runCli(['run', file, '--db', db.url, '--base-url', sim.url, '--json']);
    expect(result.code).toBe(3);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.status).toBe('partial');
    expect(summary.failures).toHaveLength(1);
    expect(summary.failures[0]?.operation).toBe('coordInfo');
    expect(summary.failures[0]?.unit).toMatch(/9\.12.*48\.74/);
    expect(summary.failures[0]?.error).toMatch(/503/);
    expect(result.stderr).toContain(summary.failures[0]?.unit);
  }, 180_000);
});
