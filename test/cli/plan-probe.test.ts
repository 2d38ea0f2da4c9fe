import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runBuiltCli } from '../helpers/built-cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

interface Range {
  low: number;
  estimate: number;
  high: number;
}

interface PlanJson {
  estimate: {
    basis: string;
    requests: Record<'coord' | 'servingLines' | 'total', Range>;
    durationS: Range;
    density: { pins: Range; stops: Range; probes: { sent: number; answered: number; capped: number } };
    earlierNights?: { runs: number; requests: { min: number; max: number } };
  };
}

const within = (r: Range): boolean => r.low <= r.estimate && r.estimate <= r.high;

describe('plan --probe sizes a first night from a few sample requests, through the built CLI', () => {
  let sim: Simulator;
  let db: TestDbUrl;
  let dir: string;
  let jobFile: string;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 3000 });
    db = await createTestDbUrl();
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-plan-probe-'));
    jobFile = join(dir, 'probe.json');
    await writeFile(
      jobFile,
      JSON.stringify({
        name: 'probe',
        baseUrl: sim.url,
        region: { bbox: [...sim.world.bbox] },
        rateLimit: { requestsPerSecond: 200, concurrency: 4 },
        // A small max: the region holds many times it, so most sample boxes come back capped.
        sweeps: { coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 60 }, servingLines: { forStops: true }, addInfo: {} },
      }),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends at most N CoordInfo requests, reads capped boxes as lower bounds, and the night it sizes comes within 2x of its estimate', async () => {
    const before = sim.requestLog.length;
    const plan = await runBuiltCli(['plan', jobFile, '--probe', '48', '--json', '--log-format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const sent = sim.requestLog.slice(before);
    const { estimate } = JSON.parse(plan.stdout) as PlanJson;
    expect(estimate.basis).toBe('probe');
    // First the upstream check `run` makes (one request per operation the job sweeps, and a stop looked
    // up for ServingLines), answered before any sample is sent; then at most N CoordInfo samples.
    const preflight = sent.length - estimate.density.probes.sent;
    expect(preflight).toBeGreaterThan(0);
    expect(preflight).toBeLessThanOrEqual(4);
    const samples = sent.slice(preflight);
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.length).toBeLessThanOrEqual(48);
    expect(samples.every((r) => /XML_COORD_REQUEST/.test(r.path))).toBe(true);
    expect(estimate.density.probes.capped).toBeGreaterThan(0);
    for (const r of [estimate.requests.total, estimate.requests.coord, estimate.durationS, estimate.density.pins]) expect(within(r)).toBe(true);

    const night = await runBuiltCli(['run', jobFile, '--db', db.url, '--json', '--log-format', 'json']);
    expect(night.code, night.stderr).toBe(0);
    const summary = JSON.parse(night.stdout.trim().split('\n').pop()!) as { requests: number; requestsByOperation: Record<string, number>; coord: { pins: number } };
    expect(summary.requests).toBeGreaterThan(estimate.requests.total.estimate / 2);
    expect(summary.requests).toBeLessThan(estimate.requests.total.estimate * 2);
    expect(summary.coord.pins).toBeGreaterThan(estimate.density.pins.estimate / 2);
    expect(summary.coord.pins).toBeLessThan(estimate.density.pins.estimate * 2);

    // With the database, the night that was is part of the range.
    const next = await runBuiltCli(['plan', jobFile, '--db', db.url, '--json', '--log-format', 'json']);
    expect(next.code, next.stderr).toBe(0);
    const known = (JSON.parse(next.stdout) as PlanJson).estimate;
    expect(known.basis).toBe('known');
    expect(known.earlierNights?.runs).toBe(1);
    expect(known.earlierNights?.requests.max).toBe(summary.requests);
    expect(known.requests.total.high).toBeGreaterThanOrEqual(summary.requests);
  }, 300_000);

  it('--probe takes a number of requests from 1 to 1000 (exit 2 otherwise)', async () => {
    const r = await runBuiltCli(['plan', jobFile, '--probe', '0', '--log-format', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--probe: expected a number of requests from 1 to 1000/);
  });
});
