import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData, RunNotFoundError, writeRunReport, type WrittenReport } from '../../src/report/index.js';
import { renderMap } from '../../src/report/map.js';
import { leafTiles } from '../../src/report/queries.js';
import type { RunSummary } from '../../src/sweep/run.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { runFaultyJob, startSims, type Sims } from './run-fixture.js';

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
if (!hasChromium) console.warn(`skipping the browser test: ${chromiumPath} is missing (apt-get install -y chromium)`);

interface MapCounts {
  tiles: number; failed: string[]; failedFill: string[]; failedMarks: string[]; capped: string[]; cappedMarks: string[]; failedStroke: string[];
  areas: number; areasWithShape: number; stopDots: number; stopsRepresented: number; dataStopDots: number; problemRows: number;
  timelineBars: number; mapBox: { w: number; h: number } | null;
}

/** Runs in the page (a string: the project's TypeScript has no DOM lib). */
const countMapElements = `(() => {
  const q = (sel) => [...document.querySelectorAll(sel)];
  const attr = (name) => (e) => e.getAttribute(name);
  const map = document.querySelector('svg.map');
  const box = map ? map.getBoundingClientRect() : null;
  return {
    tiles: q('svg.map rect.tile').length,
    failed: q('svg.map rect.tile-failed').map(attr('data-tile')),
    failedFill: q('svg.map rect.tile-failed').map(attr('fill')),
    failedMarks: q('svg.map rect.mark-failed').map(attr('data-tile')),
    capped: q('svg.map rect.tile-capped').map(attr('data-tile')),
    cappedMarks: q('svg.map rect.mark-capped').map(attr('data-tile')),
    failedStroke: q('svg.map rect.mark-failed').map((e) => getComputedStyle(e).stroke),
    areas: q('svg.map path.area').length,
    areasWithShape: q('svg.map path.area').filter((e) => e.getBBox().width > 0).length,
    stopDots: q('svg.map circle.stop').length,
    stopsRepresented: q('svg.map circle.stop').reduce((n, e) => n + Number(e.getAttribute('data-n')), 0),
    dataStopDots: Number(map && map.getAttribute('data-stop-dots')),
    problemRows: q('table.problems tbody tr').length,
    timelineBars: q('svg.timeline rect.bar').length,
    mapBox: box ? { w: box.width, h: box.height } : null,
  };
})()`;

describe('the HTML report of a partial run', () => {
  let sims: Sims;
  let t: TestDb;
  let summary: RunSummary;
  let dir: string;
  let report: WrittenReport;
  let html: string;
  beforeAll(async () => {
    sims = await startSims();
    t = await openTestDb();
    summary = await runFaultyJob(sims, t);
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-report-'));
    // No --run: the latest run, which is this one.
    report = await writeRunReport(t.db, undefined, join(dir, 'sub', 'report.html'));
    html = await readFile(report.file, 'utf8');
  });
  afterAll(async () => {
    await t?.dispose();
    await sims?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reports the latest run, self-contained and small', async () => {
    expect(summary.status).toBe('partial');
    expect(report.runId).toBe(summary.runId);
    expect(report.bytes).toBe(Buffer.byteLength(html));
    expect(report.bytes).toBeLessThan(3_000_000);
    expect(html).not.toMatch(/<script|<link|@import|url\((?!#)/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:|\/\/)/i);
    expect(html).toContain(`run ${summary.runId} of report`);
    for (const f of summary.failures) expect(html).toContain(f.unit);
    await expect(writeRunReport(t.db, '987654321', join(dir, 'x.html'))).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(writeRunReport(t.db, 'latest; DROP', join(dir, 'x.html'))).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it('aggregates stops on a grid when there are too many to draw, and keeps every one counted', async () => {
    const all = await loadReportData(t.db, summary.runId);
    const few = await loadReportData(t.db, summary.runId, { maxStopDots: 10 });
    expect(all.stops.cellDeg).toBeNull();
    expect(few.stops.total).toBe(all.stops.total);
    expect(few.stops.cellDeg).toBeGreaterThan(0);
    expect(few.stops.dots.length).toBeLessThan(all.stops.dots.length);
    expect(few.stops.dots.reduce((n, d) => n + d.n, 0)).toBe(all.stops.total);
    if (!few.extent) throw new Error('no extent');
    const svg = renderMap({ extent: few.extent, tiles: leafTiles(few.units), areas: few.areas, stops: few.stops });
    expect(svg).toContain('data-stops-aggregated="true"');
    expect(svg.match(/<circle class="stop"/g)?.length).toBe(few.stops.dots.length);
  });

  it.skipIf(!hasChromium)('draws tiles, areas and stops in headless Chromium without any request leaving the page', async () => {
    const k = t.db.kysely;
    const leaf = await sql<{ status: string; n: number }>`
      SELECT status, count(*)::int AS n FROM efa.run_tiles
      WHERE run_id = ${summary.runId}::bigint AND operation = 'coordInfo' AND status <> 'split' GROUP BY status`.execute(k);
    const leafByStatus = Object.fromEntries(leaf.rows.map((r) => [r.status, r.n]));
    const leafCount = leaf.rows.reduce((n, r) => n + r.n, 0);
    const failed = await sql<{ tile_id: string }>`
      SELECT tile_id FROM efa.run_tiles WHERE run_id = ${summary.runId}::bigint AND status = 'failed' AND operation = 'coordInfo'`.execute(k);
    const inMap = await sql<{ areas: number; all_areas: number; stops: number }>`
      WITH e AS (SELECT ST_SetSRID(ST_Extent(bbox)::geometry, 4326) AS g FROM efa.run_tiles WHERE run_id = ${summary.runId}::bigint AND operation = 'coordInfo')
      SELECT (SELECT count(*) FROM efa.operating_areas a, e WHERE a.deleted_at IS NULL AND ST_Intersects(a.geom, e.g))::int AS areas,
             (SELECT count(*) FROM efa.operating_areas WHERE deleted_at IS NULL)::int AS all_areas,
             (SELECT count(*) FROM efa.stops s, e WHERE s.deleted_at IS NULL AND ST_Intersects(s.geom, e.g))::int AS stops`.execute(k);
    const expected = inMap.rows[0];
    expect(failed.rows.length).toBeGreaterThanOrEqual(1);
    expect(leafByStatus['done']).toBeGreaterThan(4);
    expect(expected?.areas).toBeGreaterThan(0);
    expect(expected?.stops).toBeGreaterThan(50);
    console.log(`report: ${report.bytes} bytes; ${leafCount} leaf tiles ${JSON.stringify(leafByStatus)}, ${expected?.areas}/${expected?.all_areas} areas, ${expected?.stops} stops`);

    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const pageUrl = pathToFileURL(report.file).href;
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.route('**/*', (route) => (route.request().url() === pageUrl ? route.continue() : route.abort()));
      await page.goto(pageUrl, { waitUntil: 'load' });

      const counts = await page.evaluate<MapCounts>(countMapElements);
      expect(counts.tiles).toBe(leafCount);
      expect(counts.failed.sort()).toEqual(failed.rows.map((r) => r.tile_id).sort());
      expect(counts.failedFill.every((f) => f === 'url(#hatch-failed)')).toBe(true);
      expect(counts.failedMarks.sort()).toEqual(failed.rows.map((r) => r.tile_id).sort());
      expect(counts.failedStroke.every((s) => s === 'rgb(227, 26, 28)')).toBe(true);
      const capped = summary.capped.map((c) => c.unit).sort();
      expect(capped.length).toBeGreaterThan(0);
      expect(counts.capped.sort()).toEqual(capped);
      expect(counts.cappedMarks.sort()).toEqual(capped);
      expect(counts.areas).toBe(expected?.areas);
      expect(counts.areasWithShape).toBe(expected?.areas);
      expect(counts.stopDots).toBe(counts.dataStopDots);
      // Every stop in the map extent is drawn: one dot each, or counted in its grid cell's dot.
      expect(counts.stopsRepresented).toBe(expected?.stops);
      expect(counts.problemRows).toBe(summary.failures.length + summary.capped.length);
      expect(counts.timelineBars).toBeGreaterThan(0);
      expect(counts.mapBox?.w).toBeGreaterThan(300);

      await mkdir('test-artifacts', { recursive: true });
      await page.screenshot({ path: 'test-artifacts/report.png', fullPage: true });
      // Nothing but the page itself was asked for: no font, no tile, no script, no favicon that went out.
      expect(requests.filter((u) => u !== pageUrl)).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 120_000);
});
