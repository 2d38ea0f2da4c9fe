import { buildTimeline, operationLegend, renderRowsChart, renderTimeline, rowsLegend, type RelationRows } from './charts.js';
import { esc, num } from './escape.js';
import { densityLegend, renderMap } from './map.js';
import { leafTiles, type ReportData, type ReportUnit } from './queries.js';

/** The relations of `efa.runs.stats` (keys starting with `_` are run counters, not relations). */
export function relationRows(stats: Record<string, unknown>): RelationRows[] {
  return Object.entries(stats)
    .filter(([k, v]) => !k.startsWith('_') && typeof v === 'object' && v !== null)
    .map(([relation, v]) => {
      const s = v as Partial<Record<'inserted' | 'updated' | 'deleted' | 'unchanged', number>>;
      return { relation, inserted: s.inserted ?? 0, updated: s.updated ?? 0, deleted: s.deleted ?? 0, unchanged: s.unchanged ?? 0 };
    })
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

function summarySection(d: ReportData, rebuilt: number, retries: number): string {
  const r = d.run;
  const units = (r.stats['_units'] ?? {}) as Record<string, Partial<Record<'done' | 'split' | 'capped' | 'failed', number>>>;
  const rows: [string, string][] = [
    ['job', esc(r.job)], ['run', esc(r.runId)], ['status', `<span class="status s-${esc(r.status)}">${esc(r.status)}</span>`],
    ['started', esc(iso(r.startedAt))], ['finished', esc(iso(r.finishedAt))],
    ['duration', r.durationS === null ? '—' : `${num(r.durationS, 1)} s`],
    ['requests', `${num(r.requests)} <small>(efa.runs; ${num(rebuilt)} rebuilt from the units below)</small>`],
    ['retries', `${num(retries)} <small>(from efa.run_tiles attempts)</small>`],
    ['rejects', num(Number(r.stats['_rejects'] ?? 0))],
    ['error', r.error ? `<span class="error">${esc(r.error)}</span>` : '—'],
  ];
  const unitRows = Object.entries(units).map(([op, u]) => [esc(op), ...(['done', 'split', 'capped', 'failed'] as const).map((k) => num(u[k] ?? 0))]);
  return `<section><h2>Run</h2><table class="kv">${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>` +
    (unitRows.length ? `<h3>Units of work</h3>${table(['operation', 'done', 'split', 'capped', 'failed'], unitRows, 'num')}` : '') + '</section>';
}

function rowsSection(d: ReportData): string {
  const rel = relationRows(d.run.stats);
  const logged = (relation: string, op: string): number => d.changes.find((c) => c.relation === relation && c.op === op)?.n ?? 0;
  const names = [...new Set([...rel.map((r) => r.relation), ...d.changes.map((c) => c.relation)])].sort();
  const rows = names.map((n) => {
    const s = rel.find((r) => r.relation === n);
    return [esc(n), ...[s?.inserted, s?.updated, s?.deleted, s?.unchanged].map((v) => num(v ?? 0)), `${logged(n, 'insert')} / ${logged(n, 'update')} / ${logged(n, 'delete')}`];
  });
  return `<section><h2>Rows per relation</h2><p class="legend">${rowsLegend()}</p>${rel.length ? renderRowsChart(rel) : '<p>No rows were written.</p>'}` +
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

function mapSection(d: ReportData): string {
  if (!d.extent) return '<section><h2>Map</h2><p>Nothing to draw: the run has no CoordInfo tiles, region or stored geometry.</p></section>';
  const tiles = leafTiles(d.units);
  const s = d.stops;
  const stopNote = s.cellDeg === null
    ? `${num(s.total)} stops in the map extent, one dot each.`
    : `${num(s.total)} stops in the map extent, more than can be drawn one by one: aggregated to ${num(s.dots.length)} dots, one per grid cell of ${s.cellDeg.toFixed(4)}° (dot area grows with the number of stops in the cell).`;
  return `<section><h2>Map</h2>${renderMap({ extent: d.extent, tiles, areas: d.areas, stops: s })}` +
    `<div class="legend"><div>CoordInfo leaf tiles shaded by hit density:<br>${densityLegend(tiles)}</div>` +
    `<div><span class="key"><i class="k-capped"></i>capped (hit the max, too small to split)</span>` +
    `<span class="key"><i class="k-failed"></i>failed after retries</span><span class="key"><i class="k-area"></i>operating area (${d.areas.length})</span>` +
    `<span class="key"><i class="k-stop"></i>stop</span></div></div>` +
    `<p class="note">${num(tiles.length)} leaf tiles. ${stopNote} Stops and areas are the current rows of efa.stops and efa.operating_areas ` +
    `(clipped to the extent of the run's tiles). Equirectangular projection, x scaled by cos(latitude), north up. ` +
    `Extent ${esc(d.extent.map((v) => v.toFixed(4)).join(', '))} (lon/lat).</p></section>`;
}

const style = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:940px;color:#222}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.num td:not(:first-child){text-align:right}table.kv th{background:#f6f6f6;width:110px}thead th{background:#f6f6f6}
table.problems td{font-size:12px;max-width:320px;word-break:break-word}small,.note{color:#666}.error{color:#b00}
.status{white-space:nowrap;padding:1px 6px;border-radius:3px;background:#eee}.s-succeeded,.s-done{background:#d9f0d3}.s-partial,.s-capped{background:#fee6ce}.s-failed{background:#fdd}
svg text{font:11px system-ui,sans-serif;fill:#333}svg.map{border:1px solid #bbb;display:block}
.tile{stroke:#fff;stroke-width:.5}.area{fill:#7b3294;fill-opacity:.07;stroke:#7b3294;stroke-width:1.6;fill-rule:evenodd}
.stop{fill:#111;fill-opacity:.7}.tile-mark{fill:none;stroke-width:2.5}.mark-capped{stroke:#ff7f00}.mark-failed{stroke:#e31a1c;stroke-dasharray:6 3}
.legend{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start;margin:8px 0}.key{margin-right:14px;white-space:nowrap}
.key i{display:inline-block;width:14px;height:12px;margin-right:5px;vertical-align:-1px;border:1px solid #999}
.k-capped{border:2.5px solid #ff7f00!important;background:#fff}.k-failed{border:2.5px dashed #e31a1c!important;background:repeating-linear-gradient(45deg,#e31a1c 0 3px,#fde0dd 3px 7px)}
.k-area{border:2px solid #7b3294!important;background:#f3eaf6}.k-stop{width:7px!important;height:7px!important;border-radius:50%;background:#111}`;

/** The whole report: one HTML file, no script, no external resource; the CSP forbids loading any. */
export function renderReportHtml(d: ReportData, generatedAt: Date = new Date()): string {
  const retriesPerUnit = jobRetries(d.run.options);
  const timeline = buildTimeline(d.units, d.run.startedAt.getTime(), retriesPerUnit);
  const retries = d.units.reduce((n, u) => n + (u.attempts > 0 ? u.attempts - 1 : u.status === 'failed' ? retriesPerUnit : 0), 0);
  const byOp = timeline.operations.map((op) => [esc(op), num(d.units.filter((u) => u.operation === op).length),
    num(timeline.buckets.reduce((n, b) => n + (b[op] ?? 0), 0))]);
  const title = `efa-sync report: run ${d.run.runId} of ${d.run.job}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${style}</style></head><body>
<h1>${esc(title)}</h1>
${summarySection(d, timeline.requests, retries)}
<section><h2>Requests over time</h2><p class="legend">${operationLegend(timeline.operations)}<span class="key" style="color:#e31a1c">▲ unit failed</span></p>
${d.units.length ? renderTimeline(timeline) : '<p>No unit of work was recorded.</p>'}
<p class="note">Rebuilt from efa.run_tiles: each unit's attempts spread over its duration, ending at its fetched_at.</p>
${table(['operation', 'units', 'requests'], byOp, 'num')}</section>
${rowsSection(d)}
${problemsSection(d.units)}
${mapSection(d)}
<p class="note">Generated ${esc(iso(generatedAt))} by efa-sync. Self-contained: no script, no font, no tile server.</p>
</body></html>
`;
}
