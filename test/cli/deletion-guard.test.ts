import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDb } from '../../src/db/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { RunSummary } from '../../src/run/index.js';
import { runBuiltCli } from '../helpers/cli.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';

const clean = { DATABASE_URL: undefined, EFA_BASE_URL: undefined, EFA_ACCEPT_DELETIONS: undefined, EFA_LOG_FORMAT: 'json' };

/**
 * The mass-deletion guard on small relations and on slow erosion (issue 22, point 2), through the
 * built CLI: an answer that empties a relation is held whatever its size (3 providers are not "a
 * handful below the floor"), and a rolling ServingLines refresh that loses a few percent a night is
 * held once what its cycle marked adds up past maxGonePercent.
 */
describe('the deletion guard on small relations and slow erosion', () => {
  let sim: Simulator;
  let dir: string;
  let db: TestDbUrl;
  const dirs: string[] = [];

  beforeEach(async () => {
    sim = await startSimulator({ port: 0, seed: 3, size: 1500 });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-guard-'));
    dirs.push(dir);
    db = await createTestDbUrl();
  });
  afterEach(async () => {
    await sim?.stop();
    await db?.drop();
  });
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const job = async (name: string, sweeps: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const path = join(dir, `${name}.json`);
    await writeFile(path, JSON.stringify({ name, baseUrl: sim.url, region: { bbox: [...sim.world.bbox] }, rateLimit: { requestsPerSecond: 300, concurrency: 4 }, sweeps, ...extra }));
    return path;
  };
  const night = async (path: string, extra: readonly string[] = []) => {
    const r = await runBuiltCli(['run', path, '--db', db.url, '--json', ...extra], clean, 240_000);
    expect(r.stdout, r.stderr.slice(-2000)).not.toBe('');
    return { code: r.code, stderr: r.stderr, summary: JSON.parse(r.stdout) as RunSummary };
  };
  const liveCount = async (table: string, goneColumn = 'deleted_at'): Promise<number> => {
    const d = await openDb(db.url);
    try {
      const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`efa.${table}`)} WHERE ${sql.ref(goneColumn)} IS NULL`.execute(d.kysely);
      return r.rows[0]?.n ?? 0;
    } finally {
      await d.close();
    }
  };

  it('an OpArea answer without providers holds all of them (exit 3), however few; --accept-deletions never releases an emptied relation', async () => {
    const path = await job('guard-oparea', { opArea: { mode: 'ALL', geometry: true } });
    const one = await night(path);
    expect(one.code, one.stderr.slice(-2000)).toBe(0);
    const providers = sim.world.providers();
    expect(providers.length).toBeGreaterThan(0);
    expect(providers.length).toBeLessThan(10);
    const areas = await liveCount('operating_areas');
    for (const p of providers) sim.world.removeProvider(p.id);

    const held = await night(path);
    expect(held.code).toBe(3);
    expect(held.summary.heldDeletions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ relation: 'sharing_providers', wouldMark: providers.length, liveInScope: providers.length, reason: 'empties' }),
        expect.objectContaining({ relation: 'operating_areas', wouldMark: areas, reason: 'empties' }),
      ]),
    );
    expect(held.stderr).toMatch(/sharing_providers: this run would mark \d+ of \d+ live rows gone .*--accept-deletions/);
    expect(await liveCount('sharing_providers')).toBe(providers.length);
    expect(await liveCount('operating_areas')).toBe(areas);

    // An answer that empties a relation is never released, not even by the held run's own id.
    const accepted = await night(path, ['--accept-deletions', held.summary.runId]);
    expect(accepted.code, accepted.stderr.slice(-2000)).toBe(3);
    expect(accepted.stderr).toMatch(/sharing_providers: .*--accept-deletions did not release them: an answer that empties a relation is never released/);
    expect(await liveCount('sharing_providers')).toBe(providers.length);
  }, 600_000);

  it('an AddInfo answer without notices holds all of them (exit 3)', async () => {
    const path = await job('guard-notices', { addInfo: { publicationStatus: 'current' } });
    const one = await night(path);
    expect(one.code, one.stderr.slice(-2000)).toBe(0);
    const live = await liveCount('notices', 'ended_at');
    expect(live).toBeGreaterThan(0);
    // Every notice ends in the past: the current AddInfo answer is empty.
    for (const n of sim.world.currentNotices()) sim.world.changeNotice(n.id, { validFrom: '2020-01-01', validTo: '2020-01-02' });
    const held = await night(path);
    expect(held.code, JSON.stringify(held.summary)).toBe(3);
    expect(held.summary.heldDeletions).toEqual([expect.objectContaining({ relation: 'notices', wouldMark: live, reason: 'empties' })]);
    expect(await liveCount('notices', 'ended_at')).toBe(live);
  }, 600_000);

  it('a rolling ServingLines refresh that erodes stop-lines night after night is held once its cycle passes maxGonePercent', async () => {
    // A thirtieth of the stops a night: about 3 % of the pairs, under maxGonePercent 10 each night.
    const path = await job('guard-erosion', { coord: { types: ['STOP'], maxPerRequest: 500 }, servingLines: { forStops: true, refreshEveryNights: 30 } }, { maxGonePercent: 10 });
    const one = await night(path);
    expect(one.code, one.stderr.slice(-2000)).toBe(0);
    // A stop's means of transport are its own and its lines': keep them, so that losing its lines
    // does not change the stop itself (a changed stop has its lines fetched the same night).
    for (const s of sim.world.stops()) sim.world.updatePin(s.id, { motTypes: s.motTypes });
    const initial = await liveCount('stop_lines');
    expect(initial).toBeGreaterThan(100);
    // The deployment's ServingLines answers lose every line, stop by stop as the refresh reaches them.
    for (const s of sim.world.stops()) for (const l of sim.world.linesAtStop(s.id)) sim.world.removeLineAtStop(s.id, l.id);

    const codes: number[] = [];
    let held: RunSummary['heldDeletions'] = [];
    for (let n = 2; n <= 9 && held.length === 0; n++) {
      const r = await night(path);
      codes.push(r.code ?? -1);
      held = r.summary.heldDeletions;
    }
    // Each night alone stays under 10 %; the cycle does not.
    expect(held).toEqual([expect.objectContaining({ relation: 'stop_lines', reason: 'cycle' })]);
    expect(codes.at(-1)).toBe(3);
    const marked = initial - (await liveCount('stop_lines'));
    expect(marked).toBeGreaterThan(0);
    expect(marked / initial).toBeLessThanOrEqual(0.1);
  }, 900_000);
});
