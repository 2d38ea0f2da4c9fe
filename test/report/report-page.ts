/** The report test's browser side: Debian's Chromium through playwright-core, and what it reads off the page and the HTML. */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestDb } from '../helpers/db.js';

const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
if (!hasChromium) console.warn(`skipping the browser test: ${chromiumPath} is missing (apt-get install -y chromium)`);

export interface MapCounts {
  tiles: number; failed: string[]; failedFill: string[]; failedMarks: string[]; capped: string[]; cappedMarks: string[]; failedStroke: string[];
  areas: number; areasWithShape: number; stopDots: number; stopsRepresented: number; dataStopDots: number; problemRows: number;
  timelineBars: number; mapBox: { w: number; h: number } | null;
}

/** Runs in the page (a string: the project's TypeScript has no DOM lib). */
export const countMapElements = `(() => {
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

export async function stopNames(t: TestDb): Promise<Set<string>> {
  const r = await sql<{ name: string }>`SELECT name FROM efa.stops WHERE deleted_at IS NULL AND name IS NOT NULL`.execute(t.db.kysely);
  return new Set(r.rows.map((x) => x.name));
}

export async function mapClip(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = await page.locator('#map-live').boundingBox();
  if (!box) throw new Error('no interactive map on the page');
  return { x: box.x, y: box.y, width: box.width, height: box.height };
}

/** Counts of the interactive map's drawn layers (Leaflet's SVG paths carry our class names). */
export const liveCounts = `(() => {
  const q = (sel) => [...document.querySelectorAll(sel)];
  const failed = q('#map-live path.tile-failed');
  return {
    stops: q('#map-live path.stop').length,
    failed: failed.length,
    capped: q('#map-live path.tile-capped').length,
    done: q('#map-live path.tile-done').length,
    areas: q('#map-live path.area').length,
    failedStroke: failed.map((e) => getComputedStyle(e).stroke),
    failedWidth: failed.map((e) => parseFloat(getComputedStyle(e).strokeWidth)),
    failedBox: failed.length ? (({ width, height }) => ({ width, height }))(failed[0].getBoundingClientRect()) : null,
    zoom: Number(document.getElementById('map-live').getAttribute('data-zoom')),
    problemButtons: q('#map-problems button[data-tile]').map((b) => b.getAttribute('data-tile')),
  };
})()`;
export interface LiveCounts {
  stops: number; failed: number; capped: number; done: number; areas: number; failedStroke: string[]; failedWidth: number[];
  failedBox: { width: number; height: number } | null; zoom: number; problemButtons: string[];
}

/** A stop marker whose centre is not covered by anything else, so hovering it reaches the stop itself. */
const freeStopCentre = `(() => {
  for (const e of document.querySelectorAll('#map-live path.stop')) {
    const r = e.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    if (document.elementFromPoint(x, y) === e) return { x, y };
  }
  return null;
})()`;

/** The interactive map's tile layers as listed in its layer control: label and whether it is shown. */
export const tileOverlays = `[...document.querySelectorAll('.leaflet-control-layers-overlays label')]
  .map((l) => [l.textContent.trim(), l.querySelector('input').checked]).filter(([name]) => name.startsWith('Swept tiles'))`;

/** A leaf CoordInfo tile as stored, of the stratum its request asked for ('' = every type). */
export interface StoredTile { tileId: string; status: string; stratum: string }

/** A run's leaf CoordInfo tiles from efa.run_tiles, by stratum (types named as a tile id names them), the one with most tiles first. */
export async function storedStrata(t: TestDb, runId: string): Promise<{ name: string; tiles: StoredTile[] }[]> {
  const r = await sql<StoredTile>`
    SELECT tile_id AS "tileId", status, coalesce((SELECT string_agg(x, '+' ORDER BY x) FROM unnest(types) x), '') AS stratum
    FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = 'coordInfo' AND status <> 'split'`.execute(t.db.kysely);
  const names = [...new Set(r.rows.map((x) => x.stratum))];
  return names.map((name) => ({ name, tiles: r.rows.filter((x) => x.stratum === name) })).sort((a, b) => b.tiles.length - a.tiles.length);
}

export const isProblem = (x: { status: string }): boolean => x.status === 'failed' || x.status === 'capped';
export const idsOf = (tiles: readonly StoredTile[]): string[] => tiles.map((x) => x.tileId).sort();

/** The static map as written: the tiles it shades and the failed and capped tiles it marks (their ids), and its caption. */
export function staticMap(html: string): { shaded: string[]; marked: string[]; caption: string } {
  const svg = /<svg class="map"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
  return {
    shaded: [...svg.matchAll(/<rect class="tile tile-\w+" data-status="\w+" data-tile="([^"]+)"/g)].map((m) => m[1] ?? '').sort(),
    marked: [...svg.matchAll(/<rect class="tile-mark mark-\w+" data-tile="([^"]+)"/g)].map((m) => m[1] ?? '').sort(),
    caption: /<figcaption class="note">([\s\S]*?)<\/figcaption>/.exec(html)?.[1] ?? '',
  };
}

/** The interactive map's data (the JSON its setup reads): the strata's tiles, with each tile's status and colour. */
interface LiveMapData { strata: { name: string; tiles: { id: string; s: string; c: string }[] }[] }
export function liveMapData(html: string): LiveMapData {
  const json = /<script type="application\/json" id="map-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (json === undefined) throw new Error('no map data in the report');
  return JSON.parse(json) as LiveMapData;
}

/** The tiles the list above the interactive map names (its buttons zoom to them). */
export const problemButtons = (html: string): string[] => [...html.matchAll(/<button type="button" data-tile="([^"]+)"/g)].map((m) => m[1] ?? '').sort();

export const launchChromium = (): Promise<Browser> => chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  // Chromium does not start under a preloaded libfaketime (npm run test:clock-ahead); the page reads no clock.
  env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'LD_PRELOAD' && e[1] !== undefined)),
});

/** The report in a page that may load nothing but the report itself; `requests` are every address it asked for. */
export async function openReport(browser: Browser, file: string): Promise<{ page: Page; pageUrl: string; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const pageUrl = pathToFileURL(file).href;
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.route('**/*', (route) => (route.request().url() === pageUrl ? route.continue() : route.abort()));
  await page.goto(pageUrl, { waitUntil: 'load' });
  await page.waitForSelector('#map-live[data-ready="true"]', { timeout: 30_000 });
  return { page, pageUrl, requests };
}

/** The map's zoom level, which the page keeps on the container (the CSP forbids evaluating strings to poll it). */
export const zoomOf = async (page: Page): Promise<number> => Number(await page.locator('#map-live').getAttribute('data-zoom'));

/** Zoom, toggle a layer, hover a stop: what a person does with the map. */
export async function checkInteractiveMap(page: Page, want: { failed: string[]; capped: string[]; stops: number; stopNames: Set<string> }): Promise<void> {
  const before = await page.evaluate<LiveCounts>(liveCounts);
  expect(before.stops).toBe(want.stops);
  expect(before.failed).toBe(want.failed.length);
  expect(before.capped).toBe(want.capped.length);
  expect(before.areas).toBeGreaterThan(0);
  // Impossible to miss: thick red outlines, and a list above the map naming each failed and capped tile.
  expect(before.failedStroke.every((c) => c === 'rgb(227, 26, 28)')).toBe(true);
  expect(Math.min(...before.failedWidth)).toBeGreaterThanOrEqual(4);
  expect(before.problemButtons.sort()).toEqual([...want.failed, ...want.capped].sort());

  await page.click('.leaflet-control-zoom-in');
  await expect.poll(() => zoomOf(page)).toBeGreaterThan(before.zoom);
  const zoomed = await page.evaluate<LiveCounts>(liveCounts);
  expect(zoomed.zoom).toBeGreaterThan(before.zoom);
  expect(zoomed.failedBox?.width ?? 0).toBeGreaterThan((before.failedBox?.width ?? 0) * 1.5);

  const stopsToggle = page.locator('.leaflet-control-layers-overlays label', { hasText: 'Stops' }).locator('input');
  await stopsToggle.uncheck();
  expect((await page.evaluate<LiveCounts>(liveCounts)).stops).toBe(0);
  await stopsToggle.check();
  expect((await page.evaluate<LiveCounts>(liveCounts)).stops).toBe(want.stops);

  const at = await page.evaluate<{ x: number; y: number } | null>(freeStopCentre);
  if (!at) throw new Error('no stop marker free to hover');
  await page.mouse.move(at.x, at.y);
  const tooltip = page.locator('.leaflet-tooltip.name-stop');
  await tooltip.waitFor({ timeout: 5000 });
  const name = (await tooltip.textContent()) ?? '';
  expect([...want.stopNames]).toContain(name);

  // The list zooms to a failed tile.
  const firstFailed = want.failed[0];
  if (firstFailed) {
    await page.click(`#map-problems button[data-tile="${firstFailed}"]`);
    await expect.poll(() => zoomOf(page)).not.toBe(zoomed.zoom);
  }
  await page.click('#map-reset');
  await expect.poll(() => zoomOf(page)).toBe(before.zoom);
  // Let the zoom animation finish before anyone takes a picture.
  await page.waitForTimeout(600);
}
