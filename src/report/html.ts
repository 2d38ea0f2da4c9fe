import { buildTimeline, operationLegend, renderRowsChart, renderTimeline, rowsLegend, type RelationRows } from './charts.js';
import { esc, num } from './escape.js';
import { densityLegend, renderMap } from './map.js';
import { renderLiveMap, type LiveMap } from './live-map.js';
import type { RelationCounts } from '../db/run-record.js';
import { leafTiles, stratumName, tileStrata, type ReportData, type ReportUnit, type TileStratum } from './queries.js';
import { renderAvailabilityChart } from './snapshots.js';
import { renderWhatChangedSection } from './history.js';

function snapshotSection(d: ReportData): string {
  const s = d.snapshots;
  if (!s) return '';
  const at = s.vehicles.takenAt ? s.vehicles.takenAt.toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—';
  return `<section><h2>Sharing vehicles over time</h2><p class="note">Vehicles available (not known to be unavailable) per provider in each snapshot of job ` +
    `${esc(s.job)} of source ${esc(d.run.source)} over the 24 hours up to its latest (${esc(at)}: ${num(s.vehicles.total)} vehicles, drawn on the map below). ` +
    `Snapshots with a failed or capped tile have a gap: they are grey bands, not counted and never drawn as zero.</p>${renderAvailabilityChart(s)}</section>`;
}

/** The rows per relation of a run (efa.runs.stats), by relation name. */
export function relationRows(stats: RelationCounts): RelationRows[] {
  return Object.entries(stats)
    .map(([relation, s]) => ({ relation, inserted: s.inserted, updated: s.updated, deleted: s.deleted, unchanged: s.unchanged }))
    .sort((a, b) => a.relation.localeCompare(b.relation));
}

function jobRetries(options: Record<string, unknown>): number {
  const r = (options['rateLimit'] as { retries?: unknown } | undefined)?.retries;
  return typeof r === 'number' ? r : 4;
}

const table = (head: readonly string[], rows: readonly (readonly string[])[], cls = ''): string =>
  `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
  rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('') + '</tbody></table>';

const iso = (d: Date | null): string => (d ? d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');

/**
 * The run's requests as counted when they were sent (efa.runs.requests, and meta.requestsByOperation
 * by operation, the upstream probe as `probe`): the figures of the run's summary line and --json.
 */
function requestsCell(r: ReportData['run']): string {
  const byOp = Object.entries(r.meta?.requestsByOperation ?? {}).filter(([, n]) => n > 0);
  const counted = byOp.reduce((n, [, k]) => n + k, 0);
  const parts = byOp.map(([op, n]) => `${esc(op)} ${num(n)}`).join(', ');
  // A resumed run's total includes the requests of the process interrupted before it, whose
  // breakdown was never written.
  const earlier = r.requests - counted;
  return `${num(r.requests)}${parts ? ` <small>(${parts}${earlier > 0 ? `, ${num(earlier)} before the run was resumed` : ''})</small>` : ''}`;
}

function summarySection(d: ReportData, retries: number): string {
  const r = d.run;
  const units = r.meta?.units ?? {};
  const rows: [string, string][] = [
    ['job', esc(r.job)], ['source', esc(r.source)], ['run', esc(r.runId)], ['status', `<span class="status s-${esc(r.status)}">${esc(r.status)}</span>`],
    ['started', esc(iso(r.startedAt))], ['finished', esc(iso(r.finishedAt))],
    ['duration', r.durationS === null ? '—' : `${num(r.durationS, 1)} s`],
    ['requests', requestsCell(r)],
    ['retries', num(retries)],
    ...(r.meta?.outage && r.meta.outage.outages > 0
      ? [['upstream down', esc(`${r.meta.outage.outages} time(s), ${r.meta.outage.waitedS} s waited, ${r.meta.outage.probes} probe request(s) (outageProbe)`)] as [string, string]]
      : []),
    ...(d.snapshotRun ? [] : [['rejects', num(r.meta?.rejects ?? 0)] as [string, string]]),
    ...(r.meta && r.meta.heldDeletions.length > 0
      ? [['deletions held', `<span class="error">${r.meta.heldDeletions.map((h) => esc(`${h.relation}: ${h.wouldMark} of ${h.liveInScope} rows (over maxGonePercent ${h.maxGonePercent})`)).join('; ')}</span>`] as [string, string]]
      : []),
    ['error', r.error ? `<span class="error">${esc(r.error)}</span>` : '—'],
  ];
  const unitRows = Object.entries(units).map(([op, u]) => [esc(op), ...(['done', 'incomplete', 'split', 'capped', 'failed'] as const).map((k) => num(u[k]))]);
  const unitsTitle = d.snapshotRun ? 'Tiles per snapshot' : 'Units of work';
  return `<section><h2>Run</h2><table class="kv">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>` +
    (unitRows.length ? `<h3>${unitsTitle}</h3>${table(['operation', 'done', 'incomplete', 'split', 'capped', 'failed'], unitRows, 'num')}` : '') + '</section>';
}

/** What a snapshot run saw, per kind: its time, status, rows against the requests it took, its gaps. */
function snapshotRunSection(d: ReportData): string {
  const taken = d.run.meta?.snapshots ?? [];
  if (taken.length === 0) return '<section><h2>Snapshot</h2><p>This run stored no snapshot: it failed before one was taken (see the error above).</p></section>';
  const rows = taken.map((s) => {
    const tiles = d.units.filter((u) => u.operation === s.kind);
    return [esc(s.kind), esc(s.takenAt.replace('T', ' ').slice(0, 19) + ' UTC'), `<span class="status s-${s.status === 'complete' ? 'done' : s.status}">${esc(s.status)}</span>`,
      num(s.rows), num(s.objects), num(tiles.filter((t) => t.status !== 'split').length), num(s.tilesFailed), num(s.tilesCapped),
      `${num(s.requests)} (floor ${num(s.floor)})`, num(s.detailRequests)];
  });
  const parking = taken.find((s) => s.kind === 'parking');
  const parkingNote = parking
    ? ` The parking snapshot's ${num(parking.rows)} objects are the map's parking layer, each with its free places as it answered.`
    : '';
  return `<section><h2>Snapshot</h2><p class="note">What this run saw at its snapshot time. A snapshot with a failed or capped tile is ` +
    `<b>partial</b>: its gap is kept in efa.snapshot_tiles and the views do not count it.${parkingNote}</p>` +
    table(['kind', 'taken at', 'status', 'rows', 'objects', 'tiles', 'failed', 'capped or incomplete', 'requests', 'detail requests'], rows, 'num') + '</section>';
}

function rowsSection(d: ReportData): string {
  const rel = relationRows(d.run.stats);
  const logged = (relation: string, op: string): number => d.changes.find((c) => c.relation === relation && c.op === op)?.n ?? 0;
  const names = [...new Set([...rel.map((r) => r.relation), ...d.changes.map((c) => c.relation)])].sort();
  const rows = names.map((n) => {
    const s = rel.find((r) => r.relation === n);
    return [esc(n), ...[s?.inserted, s?.updated, s?.deleted, s?.unchanged].map((v) => num(v ?? 0)), `${logged(n, 'insert')} / ${logged(n, 'update')} / ${logged(n, 'delete')}`];
  });
  return `<section><h2>Rows per relation</h2><p class="note">Rows of source ${esc(d.run.source)} this run wrote.</p><p class="legend">${rowsLegend()}</p>${rel.length ? renderRowsChart(rel) : '<p>No rows were written.</p>'}` +
    table(['relation', 'inserted', 'updated', 'deleted', 'unchanged', 'efa.changes ins / upd / del'], rows, 'num') + '</section>';
}

function problemsSection(units: readonly ReportUnit[]): string {
  const bad = units.filter((u) => u.status === 'failed' || u.status === 'capped');
  const rows = bad.map((u) => [
    esc(u.operation), `<code>${esc(u.tileId)}</code>`, `<span class="status s-${u.status}">${u.status}</span>`, num(u.hits), num(u.attempts),
    u.bbox ? esc(u.bbox.map((v) => v.toFixed(5)).join(', ')) : '—', esc(u.error ?? ''),
  ]);
  return `<section><h2>Failed and capped units (${bad.length})</h2>` +
    (bad.length ? table(['operation', 'unit', 'status', 'hits', 'attempts', 'bbox (lon/lat)', 'error'], rows, 'problems') : '<p>None: every unit was fetched completely.</p>') + '</section>';
}

/** The failed and capped tiles, each a button that zooms the interactive map to it. */
function problemList(tiles: readonly (ReportUnit & { bbox: readonly number[] })[]): string {
  const failed = tiles.filter((t) => t.status === 'failed');
  const capped = tiles.filter((t) => t.status === 'capped');
  if (tiles.length === 0) return '<div id="map-problems" class="map-problems none">This run swept no tile.</div>';
  if (failed.length + capped.length === 0) {
    return `<div id="map-problems" class="map-problems none">Every swept tile (${num(tiles.length)}) was answered completely.</div>`;
  }
  const button = (t: ReportUnit): string => `<button type="button" data-tile="${esc(t.tileId)}">${esc(t.tileId)} (${num(t.hits)} objects)</button>`;
  const part = (list: readonly ReportUnit[], what: string): string =>
    list.length ? `<div><b>${num(list.length)} ${what}</b> ${list.map(button).join('')}</div>` : '';
  return `<div id="map-problems" class="map-problems">${part(failed, `tile${failed.length === 1 ? '' : 's'} failed after every retry: objects there may be missing or out of date, and none were marked deleted.`)}` +
    `${part(capped, `tile${capped.length === 1 ? '' : 's'} capped: the server's answer limit was reached in a tile too small to split, so some objects there may be missing.`)}` +
    '<small>Click one to zoom to it.</small></div>';
}

const tilesAskingFor = (s: TileStratum): string => `${num(s.tiles.length)} tile${s.tiles.length === 1 ? '' : 's'} asking for ${esc(stratumName(s))}`;

/**
 * What the static map's caption says of its tiles: how many it shades, and of a night by a pilot
 * (several strata), which types those asked for and which tiles of the other strata it leaves out.
 */
function shadedTilesNote(strata: readonly TileStratum[]): string {
  const [shaded, ...others] = strata;
  if (!shaded || others.length === 0) return `${num(shaded?.tiles.length ?? 0)} swept tiles.`;
  return `${tilesAskingFor(shaded)}, shaded. Night one went by a pilot, which sweeps the area once per stratum of types: ` +
    `the run swept it again as ${others.map(tilesAskingFor).join(' and ')}. Their hits count other types, so they are not shaded here ` +
    `(the interactive map shows them), but their failed and capped tiles are marked.`;
}

function mapSection(d: ReportData): { html: string; live: LiveMap | null } {
  if (!d.extent) return { html: '<section><h2>Map</h2><p>Nothing to draw: this run swept no area and stored nothing with a location.</p></section>', live: null };
  const tiles = leafTiles(d.units);
  const strata = tileStrata(tiles);
  const [shaded] = strata;
  const several = shaded !== undefined && strata.length > 1;
  const live = renderLiveMap({ extent: d.extent, strata, areas: d.areas, layers: d.layers, source: d.run.source }, problemList(tiles));
  const s = d.stops;
  const stopNote = s.cellDeg === null
    ? `${num(s.total)} stops, one dot each.`
    : `${num(s.total)} stops, too many to print one by one: one dot per ${s.cellDeg.toFixed(4)}° square, larger where the square holds more stops.`;
  const capped = (p: { total: number; shown: readonly unknown[] }, what: string): string =>
    p.shown.length < p.total ? ` Only the first ${num(p.shown.length)} of ${num(p.total)} ${what} are drawn.` : '';
  const html = `<section><h2>Map</h2>
<p class="note">Stops, points of interest, parking and operating areas of source <b>${esc(d.run.source)}</b> only: a warehouse may hold other sources over the same area. The area this run swept, as squares (tiles): each is one question to the server. Darker squares held more objects per km². ` +
    `<b>Red dashed squares failed</b> after every retry and <b>orange squares were capped</b>: data there may be incomplete, and nothing there was marked deleted. ` +
    `Drag to pan, scroll or use + and − to zoom, hover a stop, a tile or an area for its name, and tick the layers on the right to show or hide them. ` +
    (several ? `This run swept the area in ${num(strata.length)} strata, each asking for some types: each stratum's tiles are layers of their own, ` +
      `and only the largest stratum's (${esc(stratumName(shaded))}) complete tiles start shown. ` : '') +
    `Purple outlines are the operating areas of sharing providers; points of interest start hidden.${capped(d.layers.stops, 'stops')}${capped(d.layers.pois, 'points of interest')}${capped(d.layers.parking, 'parking objects')}</p>
${live.markup}
<figure class="map-static">${renderMap({ extent: d.extent, strata, areas: d.areas, stops: s })}
<div class="legend"><div>${several ? `Objects (${esc(stratumName(shaded))}) per km² in each shaded tile:` : 'Objects per km² in each swept tile:'}<br>${densityLegend(shaded?.tiles ?? [])}</div>` +
    `<div><span class="key"><i class="k-capped"></i>capped (answer limit reached, too small to split)</span>` +
    `<span class="key"><i class="k-failed"></i>failed after every retry</span><span class="key"><i class="k-area"></i>sharing operating area (${d.areas.length})</span>` +
    `<span class="key"><i class="k-stop"></i>stop</span></div></div>
<figcaption class="note">The printable map: ${shadedTilesNote(strata)} ${stopNote} Stops and operating areas of source ${esc(d.run.source)} as stored after this run, within the swept area. ` +
    `North is up; the bar shows the scale. Area: longitude ${esc(d.extent[0].toFixed(4))} to ${esc(d.extent[2].toFixed(4))}, latitude ${esc(d.extent[1].toFixed(4))} to ${esc(d.extent[3].toFixed(4))}.</figcaption></figure></section>`;
  return { html, live };
}

const style = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:940px;color:#222}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.num td:not(:first-child){text-align:right}table.kv th{background:#f6f6f6;width:110px}thead th{background:#f6f6f6}
table.problems td{font-size:12px;max-width:320px;word-break:break-word}small,.note{color:#666}.error{color:#b00}
.status{white-space:nowrap;padding:1px 6px;border-radius:3px;background:#eee}.s-succeeded,.s-done{background:#d9f0d3}.s-partial,.s-capped{background:#fee6ce}.s-failed{background:#fdd}
svg text{font:11px system-ui,sans-serif;fill:#333}svg.map{border:1px solid #bbb;display:block}
svg.map .tile{stroke:#fff;stroke-width:.5}svg.map .area{fill:#7b3294;fill-opacity:.07;stroke:#7b3294;stroke-width:1.6;fill-rule:evenodd}
svg.map .stop{fill:#111;fill-opacity:.7}.tile-mark{fill:none;stroke-width:2.5}.mark-capped{stroke:#ff7f00}.mark-failed{stroke:#e31a1c;stroke-dasharray:6 3}
.legend{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start;margin:8px 0}.key{margin-right:14px;white-space:nowrap}
.key i{display:inline-block;width:14px;height:12px;margin-right:5px;vertical-align:-1px;border:1px solid #999}
.k-capped{border:2.5px solid #ff7f00!important;background:#fff}.k-failed{border:2.5px dashed #e31a1c!important;background:repeating-linear-gradient(45deg,#e31a1c 0 3px,#fde0dd 3px 7px)}
.k-area{border:2px solid #7b3294!important;background:#f3eaf6}.k-stop{width:7px!important;height:7px!important;border-radius:50%;background:#111}`;

/**
 * The whole report: one HTML file with everything inlined (Leaflet too). The CSP lets only these
 * inline scripts run (by hash) and forbids loading anything: no font, no tile, no request.
 */
export function renderReportHtml(d: ReportData, generatedAt: Date = new Date()): string {
  const retriesPerUnit = jobRetries(d.run.options);
  const timeline = buildTimeline(d.units, d.run.startedAt.getTime(), retriesPerUnit);
  // The scheduler's count (the run's summary line has the same); runs of 0.1 have only the units' attempts.
  const retries = d.run.meta?.retries ?? d.units.reduce((n, u) => n + (u.attempts > 0 ? u.attempts - 1 : u.status === 'failed' ? retriesPerUnit : 0), 0);
  const counted = d.run.meta?.requestsByOperation ?? {};
  const ops = [...new Set([...Object.keys(counted), ...timeline.operations])];
  const byOp = ops.map((op) => {
    const units = d.units.filter((u) => u.operation === op).length;
    return [esc(op), units > 0 ? num(units) : '—', counted[op] === undefined ? '—' : num(counted[op]), num(timeline.buckets.reduce((n, b) => n + (b[op] ?? 0), 0))];
  });
  const title = `efa-sync report: run ${d.run.runId} of ${d.run.job} (source ${d.run.source})`;
  // A snapshot run writes no entity row and no unit of work: its sections are the snapshot's own.
  const snapshotRun = d.snapshotRun;
  const map = mapSection(d);
  const scriptSrc = map.live ? `; script-src ${map.live.hashes.join(' ')}` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:${scriptSrc}">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${style}${map.live ? `\n${map.live.css}` : ''}</style></head><body>
<h1>${esc(title)}</h1>
${summarySection(d, retries)}
${snapshotRun ? snapshotRunSection(d) : `<section><h2>Requests over time</h2><p class="legend">${operationLegend(timeline.operations)}<span class="key" style="color:#e31a1c">▲ unit failed</span></p>
${d.units.length ? renderTimeline(timeline) : '<p>No unit of work was recorded.</p>'}
<p class="note">The chart is rebuilt from efa.run_tiles: each unit's attempts spread over its duration, ending at its fetched_at.
"Requests" are counted as they were sent (the run's summary line and --json have the same); the probe of the upstream before planning has no unit.</p>
${table(['operation', 'units', 'requests', 'in the chart'], byOp, 'num')}</section>
${rowsSection(d)}
${d.whatChanged ? renderWhatChangedSection(d.whatChanged, d.run.source) : ''}
${problemsSection(d.units)}`}
${snapshotSection(d)}
${map.html}
<p class="note">Generated ${esc(iso(generatedAt))} by efa-sync. Self-contained: works offline, loads no font, tile or script from anywhere; the map library (Leaflet, BSD-2-Clause) is inside this file.</p>
${(map.live?.scripts ?? []).map((js) => `<script>${js}</script>`).join('\n')}
</body></html>
`;
}
