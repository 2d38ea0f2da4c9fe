import type { Db } from '../db/connect.js';
import { loadWhatChanged, type RunRelationChanges, type WhatChanged } from '../history/index.js';
import { esc, num, px } from './escape.js';

/** The report's window: what changed in the run's source over the 30 days up to the run's end. */
export async function loadWhatChangedForRun(db: Db, run: { readonly source: string; readonly startedAt: Date; readonly finishedAt: Date | null }): Promise<WhatChanged> {
  return loadWhatChanged(db.kysely, { source: run.source, until: run.finishedAt ?? run.startedAt, days: 30 });
}

const opColors = { inserted: '#33a02c', updated: '#1f78b4', deleted: '#e31a1c' } as const;
const ops = Object.keys(opColors) as (keyof typeof opColors)[];

/**
 * Changes per run per relation: one strip per relation, one stacked bar per run (inserted, updated,
 * deleted), runs in time order on a shared axis. Each strip has its own scale (a first load's
 * inserts would otherwise flatten every later night); the figure at the bar's top says how many.
 */
export function renderChangesPerRunChart(rows: readonly RunRelationChanges[]): string {
  const runs = [...new Map(rows.map((r) => [r.runId, r])).values()].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || Number(a.runId) - Number(b.runId));
  const relations = [...new Set(rows.map((r) => r.relation))].sort();
  const labelW = 130, w = 900, stripH = 46, top = 4, axisH = 18;
  const slot = (w - labelW - 10) / Math.max(1, runs.length);
  const barW = Math.max(1, Math.min(28, slot * 0.8));
  const h = top + relations.length * stripH + axisH;
  const parts: string[] = [];
  relations.forEach((relation, i) => {
    const y0 = top + i * stripH;
    const of = new Map(rows.filter((r) => r.relation === relation).map((r) => [r.runId, r]));
    const max = Math.max(1, ...[...of.values()].map((r) => r.inserted + r.updated + r.deleted));
    const scale = (stripH - 16) / max;
    parts.push(`<text x="${labelW - 8}" y="${y0 + stripH / 2}" text-anchor="end">${esc(relation)}</text>`);
    parts.push(`<line x1="${labelW}" x2="${w - 10}" y1="${y0 + stripH - 4}" y2="${y0 + stripH - 4}" stroke="#ccc"/>`);
    runs.forEach((run, j) => {
      const r = of.get(run.runId);
      if (!r) return;
      const x = labelW + j * slot + (slot - barW) / 2;
      let y = y0 + stripH - 4;
      for (const op of ops) {
        if (r[op] <= 0) continue;
        const bh = Math.max(1, r[op] * scale);
        y -= bh;
        parts.push(`<rect x="${px(x)}" y="${px(y)}" width="${px(barW)}" height="${px(bh)}" fill="${opColors[op]}"><title>${esc(`run ${run.runId} (${run.startedAt.toISOString().slice(0, 16).replace('T', ' ')}), ${relation}: ${r[op]} ${op}`)}</title></rect>`);
      }
      const total = r.inserted + r.updated + r.deleted;
      if (total > 0 && slot >= 22) parts.push(`<text x="${px(x + barW / 2)}" y="${px(y - 2)}" text-anchor="middle" font-size="9">${esc(num(total))}</text>`);
    });
  });
  // Run labels on the axis, thinned to what fits.
  const every = Math.max(1, Math.ceil(runs.length / Math.max(1, Math.floor((w - labelW) / 60))));
  runs.forEach((run, j) => {
    if (j % every !== 0) return;
    parts.push(`<text x="${px(labelW + j * slot + slot / 2)}" y="${h - 4}" text-anchor="middle">${esc(run.startedAt.toISOString().slice(5, 10))} #${esc(run.runId)}</text>`);
  });
  return `<svg class="chart changes" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${parts.join('')}</svg>`;
}

function changesLegend(): string {
  return ops.map((k) => `<span class="key"><i style="background:${opColors[k]}"></i>${k}</span>`).join(' ');
}

const coord = (lon: number, lat: number): string => `${lon.toFixed(6)}, ${lat.toFixed(6)}`;

/** The report's "What changed" section: the last days' changes per run and relation, renamed and moved stops. */
export function renderWhatChangedSection(w: WhatChanged, source: string): string {
  const period = `${w.since.toISOString().slice(0, 10)} to ${w.until.toISOString().slice(0, 10)}`;
  const chart = w.runs.length
    ? `<p class="legend">${changesLegend()}</p>${renderChangesPerRunChart(w.runs)}`
    : '<p>No run of this source changed anything in this period.</p>';
  const rows = w.stops.map((s) => {
    const renamed = s.nameBefore !== s.nameAfter;
    const moved = s.movedM > 0;
    return `<tr><td>${esc(s.at.toISOString().slice(0, 16).replace('T', ' '))}</td><td>${esc(s.runId)}</td><td>${esc(s.stopId ?? s.pinKey)}</td>` +
      `<td>${esc(renamed && moved ? 'renamed, moved' : renamed ? 'renamed' : 'moved')}</td>` +
      `<td>${esc(s.nameBefore)}<br><small>${esc(coord(s.lonBefore, s.latBefore))}</small></td>` +
      `<td>${esc(s.nameAfter)}<br><small>${esc(coord(s.lonAfter, s.latAfter))}</small></td><td>${moved ? esc(num(s.movedM, 1)) : '—'}</td></tr>`;
  });
  const stops = rows.length
    ? `<table><thead><tr><th>when (UTC)</th><th>run</th><th>stop</th><th>what</th><th>before</th><th>after</th><th>moved (m)</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
      (w.moreStops > 0 ? `<p class="note">${esc(num(w.moreStops))} more not listed: SELECT * FROM efa.pins_versions('&lt;pin_key&gt;') shows any stop's versions.</p>` : '')
    : '<p>No stop was renamed or moved in this period.</p>';
  return `<section><h2>What changed (last ${esc(w.days)} days)</h2><p class="note">Changes per run and relation of source ${esc(source)} from ${esc(period)} (efa.changes_per_run): each relation has its own scale.</p>${chart}` +
    `<h3>Renamed and moved stops</h3><p class="note">From the kept versions (efa.pins_history): the version a run replaced and the one it wrote.</p>${stops}</section>`;
}
