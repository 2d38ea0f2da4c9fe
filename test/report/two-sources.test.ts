import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData, renderReportHtml } from '../../src/report/index.js';
import { runJob, type RunSummary } from '../../src/run/index.js';
import { createLogger } from '../../src/util/log.js';
import { HARVEST_TODAY, harvestedDb, type HarvestedDb } from '../helpers/harvested.js';
import { inlineJob } from '../helpers/job.js';

/**
 * Two sources over the same city (issue 45 point 6): the report of run 3 of job `mitte` drew 294 stops,
 * 147 of its own and 147 of the demo's. Each map layer and count is of the run's source only.
 */
describe('the report of a run in a warehouse of two sources', () => {
  const region = [9.12, 48.74, 9.22, 48.8] as const;
  let h: HarvestedDb;
  let mitte: RunSummary;
  beforeAll(async () => {
    h = await harvestedDb({ seed: 3, size: 1500, region, name: 'demo', types: ['STOP', 'POI_POINT'], maxPerRequest: 200 });
    // The same deployment swept again under another source, over the same region: every row twice.
    const job = inlineJob({ ...h.job.job, name: 'mitte', source: 'mitte' });
    mitte = await runJob({ loaded: job, db: h.db, log: createLogger({ level: 'error', format: 'json' }), today: HARVEST_TODAY });
  }, 240_000);
  afterAll(async () => h?.dispose());

  it('shows only its own source\'s stops, points and operating areas, and names the source', async () => {
    const count = async (q: string): Promise<number> => (await sql<{ n: number }>`${sql.raw(q)}`.execute(h.db.kysely)).rows[0]?.n ?? 0;
    const stops = await count(`SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL AND source = 'mitte'`);
    const pois = await count(`SELECT count(*)::int AS n FROM efa.pois WHERE deleted_at IS NULL AND source = 'mitte'`);
    const areas = await count(`SELECT count(*)::int AS n FROM efa.operating_areas WHERE deleted_at IS NULL AND geom IS NOT NULL AND source = 'mitte'`);
    // The check must see what it is about: the other source holds the same objects.
    expect(await count(`SELECT count(*)::int AS n FROM efa.stops WHERE deleted_at IS NULL AND source = 'demo'`)).toBe(stops);
    expect(stops).toBeGreaterThan(0);
    expect(areas).toBeGreaterThan(0);

    const data = await loadReportData(h.db, mitte.runId);
    expect(data.run.source).toBe('mitte');
    expect(data.stops.total).toBe(stops);
    expect(data.layers.stops.total).toBe(stops);
    expect(data.layers.pois.total).toBeLessThanOrEqual(pois);
    expect(data.areas.length).toBeLessThanOrEqual(areas);
    expect(data.areas.length).toBeGreaterThan(0);
    const html = renderReportHtml(data);
    expect(html).toContain(`run ${mitte.runId} of mitte (source mitte)`);
    expect(html).toContain('<th>source</th><td>mitte</td>');
    expect(html).toContain('of source <b>mitte</b> only');
    expect(html).toContain('"source":"mitte"');
  });
});
