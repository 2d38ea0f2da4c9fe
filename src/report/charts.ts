import { esc, num, px } from './escape.js';
import type { ReportUnit } from './queries.js';

export const operationColors: Readonly<Record<string, string>> = {
  coordInfo: '#1f78b4', opArea: '#6a3d9a', servingLines: '#33a02c', addInfo: '#ff7f00', stopFinder: '#b15928',
};
const colorOf = (op: string): string => operationColors[op] ?? '#888';

export interface Timeline {
  readonly bucketS: number;
  readonly startMs: number;
  /** Per bucket, requests per operation. */
  readonly buckets: readonly Record<string, number>[];
  readonly operations: readonly string[];
  readonly requests: number;
  readonly failedAtS: readonly number[];
}

/**
 * Requests over time, rebuilt from efa.run_tiles: a unit's record is written when its request
 * ended (`fetched_at`), it took `duration_ms`, and `attempts` requests (retries included) were
 * spread over that time. A failed unit records no attempts; it spent the job's retries + 1.
 */
export function buildTimeline(units: readonly ReportUnit[], runStartMs: number, retries: number): Timeline {
  const events: { op: string; t: number }[] = [];
  const failedAt: number[] = [];
  for (const u of units) {
    const n = u.attempts > 0 ? u.attempts : u.status === 'failed' ? retries + 1 : 1;
    const start = u.fetchedMs - u.durationMs;
    for (let k = 0; k < n; k++) events.push({ op: u.operation, t: start + (k * u.durationMs) / n });
    if (u.status === 'failed') failedAt.push(u.fetchedMs);
  }
  const startMs = Math.min(runStartMs, ...events.map((e) => e.t));
  const spanS = Math.max(1, ...events.map((e) => (e.t - startMs) / 1000));
  // Seconds while a run is short; coarser for long runs so the chart keeps about 240 bars at most.
  const bucketS = [1, 5, 10, 30, 60, 300, 900, 3600].find((b) => spanS / b <= 240) ?? 3600;
  const buckets: Record<string, number>[] = Array.from({ length: Math.floor(spanS / bucketS) + 1 }, () => ({}));
  for (const e of events) {
    const b = buckets[Math.floor((e.t - startMs) / 1000 / bucketS)];
    if (b) b[e.op] = (b[e.op] ?? 0) + 1;
  }
  const operations = [...new Set(units.map((u) => u.operation))];
  return { bucketS, startMs, buckets, operations, requests: events.length, failedAtS: failedAt.map((t) => (t - startMs) / 1000) };
}

const W = 900, H = 260, L = 48, R = 12, T = 12, B = 34;

function niceStep(max: number, ticks: number): number {
  const raw = max / ticks, mag = 10 ** Math.floor(Math.log10(raw || 1));
  return ([1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw) || 1;
}

/** Stacked bars of the request rate (req/s) per bucket, one colour per operation; failed units as red ticks. */
export function renderTimeline(t: Timeline): string {
  const rates = t.buckets.map((b) => Object.values(b).reduce((s, n) => s + n, 0) / t.bucketS);
  const maxRate = Math.max(1, ...rates);
  const yStep = niceStep(maxRate, 5), yMax = Math.ceil(maxRate / yStep) * yStep;
  const spanS = t.buckets.length * t.bucketS;
  const x = (s: number): number => L + (s / spanS) * (W - L - R);
  const y = (r: number): number => H - B - (r / yMax) * (H - T - B);
  const bw = Math.max(1, x(t.bucketS) - x(0) - 1);
  const bars = t.buckets.flatMap((b, i) => {
    let acc = 0;
    return t.operations.filter((op) => (b[op] ?? 0) > 0).map((op) => {
      const r = (b[op] ?? 0) / t.bucketS, y0 = y(acc), y1 = y(acc + r);
      acc += r;
      return `<rect class="bar" data-op="${esc(op)}" x="${px(x(i * t.bucketS))}" y="${px(y1)}" width="${px(bw)}" height="${px(y0 - y1)}" fill="${colorOf(op)}"><title>${esc(`${i * t.bucketS}–${(i + 1) * t.bucketS} s: ${op} ${num(r, 1)} req/s`)}</title></rect>`;
    });
  });
  const yTicks = Array.from({ length: Math.round(yMax / yStep) + 1 }, (_, i) => i * yStep).map(
    (v) => `<line x1="${L}" x2="${W - R}" y1="${px(y(v))}" y2="${px(y(v))}" stroke="#e5e5e5"/><text x="${L - 6}" y="${px(y(v) + 4)}" text-anchor="end">${num(v, 1)}</text>`,
  );
  const xStep = niceStep(spanS, 8);
  const xTicks = Array.from({ length: Math.floor(spanS / xStep) + 1 }, (_, i) => i * xStep).map(
    (s) => `<text x="${px(x(s))}" y="${H - B + 16}" text-anchor="middle">${num(s)}</text>`,
  );
  const failed = t.failedAtS.map((s) => `<path class="failed-unit" d="M${px(x(s))} ${H - B}l-4 8h8z" fill="#e31a1c"><title>a unit failed at ${num(s, 1)} s</title></path>`);
  return `<svg class="chart timeline" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" data-bucket-s="${t.bucketS}" data-requests="${t.requests}">` +
    yTicks.join('') + bars.join('') + failed.join('') +
    `<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#444"/>${xTicks.join('')}` +
    `<text x="${(L + W - R) / 2}" y="${H - 2}" text-anchor="middle">seconds since the run started (bars of ${t.bucketS} s)</text>` +
    `<text x="12" y="${(T + H - B) / 2}" transform="rotate(-90 12 ${(T + H - B) / 2})" text-anchor="middle">requests / s</text></svg>`;
}

export function operationLegend(ops: readonly string[]): string {
  return ops.map((op) => `<span class="key"><i style="background:${colorOf(op)}"></i>${esc(op)}</span>`).join(' ');
}

export interface RelationRows {
  readonly relation: string;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
}

const opColors = { inserted: '#33a02c', updated: '#1f78b4', deleted: '#e31a1c' } as const;

/** Horizontal stacked bars: rows inserted, updated and deleted per relation (unchanged rows left out). */
export function renderRowsChart(rows: readonly RelationRows[]): string {
  const rowH = 22, labelW = 150, w = 900, h = rows.length * rowH + 8;
  const max = Math.max(1, ...rows.map((r) => r.inserted + r.updated + r.deleted));
  const scale = (w - labelW - 90) / max;
  const bars = rows.map((r, i) => {
    let x = labelW;
    const y = 4 + i * rowH;
    const parts = (['inserted', 'updated', 'deleted'] as const).filter((k) => r[k] > 0).map((k) => {
      const bw = Math.max(1, r[k] * scale), s = `<rect x="${px(x)}" y="${y}" width="${px(bw)}" height="${rowH - 6}" fill="${opColors[k]}"><title>${esc(`${r.relation}: ${r[k]} ${k}`)}</title></rect>`;
      x += bw;
      return s;
    });
    return `<text x="${labelW - 8}" y="${y + 12}" text-anchor="end">${esc(r.relation)}</text>${parts.join('')}<text x="${px(x + 6)}" y="${y + 12}">+${r.inserted} ~${r.updated} −${r.deleted}</text>`;
  });
  return `<svg class="chart rows" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${bars.join('')}</svg>`;
}

export function rowsLegend(): string {
  return (Object.keys(opColors) as (keyof typeof opColors)[]).map((k) => `<span class="key"><i style="background:${opColors[k]}"></i>${k}</span>`).join(' ');
}
