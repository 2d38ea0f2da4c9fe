import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runBuiltCli } from '../helpers/built-cli.js';
import { gridStops, pinsBody, startHostileUpstream, type HostileUpstream } from '../helpers/hostile-upstream.js';

/**
 * Issue 29 point 15 (issue 17): a server that answers every box full is one cause, and the operator
 * reads it once: one summarised warning for the capped tiles, and the run's partial verdict once.
 */
const REGION = [9.1, 48.7, 9.2, 48.8] as const;

describe('a server answering every box full (built CLI)', () => {
  let upstream: HostileUpstream;
  let dir: string;

  beforeAll(async () => {
    upstream = await startHostileUpstream(gridStops(40, REGION));
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-full-boxes-'));
  });
  afterAll(async () => {
    await upstream?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('says so in one warning, and "partial" once', async () => {
    // Every answer holds exactly max records, inside the box asked: every tile is full at any size.
    upstream.behave((q) => {
      const [x0, y0, x1, y1] = q.bbox;
      return pinsBody(
        Array.from({ length: q.max }, (_, i) => ({
          type: 'STOP', id: `full:${x0.toFixed(6)}:${y0.toFixed(6)}:${i}`, name: `Full ${i}`,
          coord: { lat: y0 + ((y1 - y0) * (i + 0.5)) / q.max, lon: x0 + ((x1 - x0) * (i + 0.5)) / q.max }, motTypes: '5',
        })),
      );
    });
    const job = join(dir, 'full.json');
    await writeFile(
      job,
      JSON.stringify({ name: 'full', baseUrl: upstream.url, region: { bbox: [...REGION] }, rateLimit: { requestsPerSecond: 500, concurrency: 4, retries: 0 }, sweeps: { coord: { types: ['STOP'], maxPerRequest: 50 } }, limits: { requestBudget: 400 } }),
    );
    const r = await runBuiltCli(['run', job, '--db', `pglite:${join(dir, 'db')}`, '--log-format', 'json'], {}, 230_000);
    const warnings = jsonLines(r.stderr).filter((l) => l['level'] === 'warn').map((l) => String(l['msg']));
    expect(r.code).toBe(3);
    // The diagnosis as it is found, and the run's verdict naming it: no line per capped tile, no
    // "the region answered no object" (it answered every box full), "partial" said once.
    expect(warnings.length, warnings.join('\n')).toBeLessThanOrEqual(2);
    expect(warnings.filter((w) => /\bpartial\b/.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => w.startsWith('capped tile'))).toEqual([]);
    expect(warnings.filter((w) => /answered no object at all/.test(w))).toEqual([]);
    expect(r.stderr).toMatch(/capped tiles: \d+/);
  }, 300_000);
});
