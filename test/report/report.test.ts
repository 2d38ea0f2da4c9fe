import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData, RunNotFoundError, writeRunReport, type WrittenReport } from '../../src/report/index.js';
import { density, ramp, renderMap } from '../../src/report/map.js';
import { leafTiles, tileStrata } from '../../src/report/queries.js';
import type { RunSummary } from '../../src/run/index.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { runFaultyJob, startSims, type Sims } from './run-fixture.js';
import { hasChromium, type MapCounts, countMapElements, stopNames, mapClip, liveCounts, type LiveCounts, tileOverlays, type StoredTile, storedStrata, isProblem, idsOf, staticMap, liveMapData, problemButtons, launchChromium, openReport, zoomOf, checkInteractiveMap } from './report-page.js';

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
    // Scripts are inline only (Leaflet and the map setup, allowed by hash in the CSP); outside them
    // nothing names a file or address to load.
    expect([...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]).filter((attrs) => /\bsrc\s*=/.test(attrs ?? ''))).toEqual([]);
    const outsideScripts = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
    expect(outsideScripts).not.toMatch(/<link|@import|url\((?!#)/i);
    expect(outsideScripts).not.toMatch(/(src|href)\s*=\s*["']?(https?:|\/\/)/i);
    const csp = /Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[^']+' 'sha256-[^']+'$/);
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
    const svg = renderMap({ extent: few.extent, strata: tileStrata(leafTiles(few.units)), areas: few.areas, stops: few.stops });
    expect(svg).toContain('data-stops-aggregated="true"');
    expect(svg.match(/<circle class="stop"/g)?.length).toBe(few.stops.dots.length);
  });

  it('shades every leaf tile of a run without strata, as one stratum of every type', async () => {
    const strata = await storedStrata(t, summary.runId);
    expect(strata.map((s) => s.name)).toEqual(['']);
    const leaves = strata[0]?.tiles ?? [];
    expect(leaves.filter(isProblem).length).toBeGreaterThan(0);
    const map = staticMap(html);
    expect(map.shaded).toEqual(idsOf(leaves));
    expect(map.marked).toEqual(idsOf(leaves.filter(isProblem)));
    expect(map.caption).toMatch(new RegExp(`^The printable map: ${leaves.length} swept tiles\\. \\d+ stops`));
    expect(html).toContain('Objects per km² in each swept tile:');
    expect(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')).not.toMatch(/strat|asking for/);
    expect(liveMapData(html).strata.map((s) => [s.name, s.tiles.map((x) => x.id).sort()])).toEqual([['every type', idsOf(leaves)]]);
    expect(problemButtons(html)).toEqual(idsOf(leaves.filter(isProblem)));
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

    // Screenshots go to the test's temp folder (removed after it) unless a developer names a folder to keep them.
    const shots = process.env.EFA_TEST_SCREENSHOTS ?? join(dir, 'screenshots');
    await mkdir(shots, { recursive: true });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const { page, pageUrl, requests } = await openReport(browser, report.file);
      await checkInteractiveMap(page, { failed: failed.rows.map((r) => r.tile_id), capped: summary.capped.map((c) => c.unit), stops: expected?.stops ?? 0, stopNames: await stopNames(t) });
      await page.screenshot({ path: join(shots, 'report-map.png'), clip: await mapClip(page) });

      // The static map is the printed one.
      await page.emulateMedia({ media: 'print' });
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

      await page.emulateMedia({ media: 'screen' });
      await page.screenshot({ path: join(shots, 'report.png'), fullPage: true });
      // Nothing but the page itself was asked for: no font, no tile, no script, no favicon that went out.
      expect(requests.filter((u) => u !== pageUrl)).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 120_000);
});

describe('the HTML report of a night by a pilot (two strata over the same area)', () => {
  let sims: Sims;
  let t: TestDb;
  let summary: RunSummary;
  let dir: string;
  let report: WrittenReport;
  let html: string;
  /** The run's leaf tiles by stratum as stored, the larger stratum first. */
  let larger: { name: string; tiles: StoredTile[] };
  let smaller: { name: string; tiles: StoredTile[] };
  beforeAll(async () => {
    sims = await startSims();
    t = await openTestDb();
    summary = await runFaultyJob(sims, t, 'strata', { pilot: true });
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-report-strata-'));
    report = await writeRunReport(t.db, summary.runId, join(dir, 'report.html'));
    html = await readFile(report.file, 'utf8');
    const strata = await storedStrata(t, summary.runId);
    // What the fixture is for: two strata of different sizes, and a failed leaf in the smaller one.
    expect(strata.map((s) => s.name).sort()).toEqual(['PARKING+STOP', 'POI_POINT']);
    [larger, smaller] = strata as [typeof larger, typeof smaller];
    expect(smaller.tiles.length).toBeLessThan(larger.tiles.length);
    expect(smaller.tiles.filter((x) => x.status === 'failed').length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await t?.dispose();
    await sims?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shades only the larger stratum on the static map, marks the failed and capped tiles of both, and names both in the caption', () => {
    const map = staticMap(html);
    expect(map.shaded).toEqual(idsOf(larger.tiles));
    expect(map.marked).toEqual(idsOf([...larger.tiles, ...smaller.tiles].filter(isProblem)));
    expect(map.marked).toEqual(expect.arrayContaining(idsOf(smaller.tiles.filter(isProblem))));
    expect(map.caption).toContain(`The printable map: ${larger.tiles.length} tiles asking for ${larger.name}, shaded.`);
    expect(map.caption).toContain(`swept it again as ${smaller.tiles.length} tiles asking for ${smaller.name}.`);
    expect(html).toContain(`Objects (${larger.name}) per km² in each shaded tile:`);
  });

  it('gives the interactive map both strata, the larger first, each shaded on its own density scale', async () => {
    const data = liveMapData(html);
    expect(data.strata.map((s) => [s.name, s.tiles.map((x) => x.id).sort()])).toEqual([[larger.name, idsOf(larger.tiles)], [smaller.name, idsOf(smaller.tiles)]]);
    // Each stratum's densest answered tile is the darkest shade and its sparsest the lightest: a scale of
    // both would leave the sparser stratum light throughout.
    const units = new Map(leafTiles((await loadReportData(t.db, summary.runId)).units).map((u) => [u.tileId, u]));
    for (const s of data.strata) {
      const answered = s.tiles.filter((x) => x.s !== 'failed').map((x) => ({ c: x.c, d: density(units.get(x.id) ?? { bbox: [0, 0, 0, 0], hits: 0 }) }));
      const ds = answered.map((x) => x.d).filter((d) => d > 0);
      expect(new Set(ds).size).toBeGreaterThan(1);
      expect(answered.find((x) => x.d === Math.max(...ds))?.c).toBe(ramp[ramp.length - 1]);
      expect(answered.find((x) => x.d === Math.min(...ds))?.c).toBe(ramp[0]);
    }
  });

  it('lists the failed and capped tiles of both strata above the interactive map and in the problems table', () => {
    const problems = [...larger.tiles, ...smaller.tiles].filter(isProblem);
    const failedInSmaller = smaller.tiles.find((x) => x.status === 'failed')?.tileId ?? '';
    expect(problemButtons(html)).toEqual(idsOf(problems));
    expect(problemButtons(html)).toContain(failedInSmaller);
    const table = /<table class="problems">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table.match(/<tr><td>coordInfo<\/td>/g)?.length).toBe(problems.length);
    expect(table).toContain(`<code>${failedInSmaller}</code>`);
  });

  it.skipIf(!hasChromium)('shows the larger stratum in headless Chromium, the smaller one when ticked, and the problems of both', async () => {
    const count = (tiles: readonly StoredTile[], status: string): number => tiles.filter((x) => x.status === status).length;
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const { page, pageUrl, requests } = await openReport(browser, report.file);
      expect(await page.evaluate<[string, boolean][]>(tileOverlays)).toEqual([larger, smaller].flatMap((s, i) => [
        [`Swept tiles (${s.name}): complete (${count(s.tiles, 'done')})`, i === 0],
        [`Swept tiles (${s.name}): capped (${count(s.tiles, 'capped')})`, true],
        [`Swept tiles (${s.name}): failed (${count(s.tiles, 'failed')})`, true],
      ]));
      const shown = await page.evaluate<LiveCounts>(liveCounts);
      expect(shown.done).toBe(count(larger.tiles, 'done'));
      expect(shown.failed).toBe(count(larger.tiles, 'failed') + count(smaller.tiles, 'failed'));
      expect(shown.capped).toBe(count(larger.tiles, 'capped') + count(smaller.tiles, 'capped'));
      expect(shown.problemButtons.sort()).toEqual(idsOf([...larger.tiles, ...smaller.tiles].filter(isProblem)));

      await page.locator('.leaflet-control-layers-overlays label', { hasText: `Swept tiles (${smaller.name}): complete` }).locator('input').check();
      expect((await page.evaluate<LiveCounts>(liveCounts)).done).toBe(count(larger.tiles, 'done') + count(smaller.tiles, 'done'));
      // The list zooms to the smaller stratum's failed tile too.
      await page.click(`#map-problems button[data-tile="${smaller.tiles.find((x) => x.status === 'failed')?.tileId}"]`);
      await expect.poll(() => zoomOf(page)).toBeGreaterThan(shown.zoom);
      expect(requests.filter((u) => u !== pageUrl)).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 120_000);
});
