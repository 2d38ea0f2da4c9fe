import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { esc, num } from './escape.js';

/**
 * The report's view of the snapshot time series: the latest vehicle snapshot's vehicles (a layer of
 * the interactive map) and available vehicles over time (a chart), where partial or failed
 * snapshots are drawn as gaps, never as zeros.
 */

export interface AvailabilityPoint {
  readonly at: Date;
  readonly status: 'complete' | 'partial' | 'failed';
  /** Available vehicles per provider (null for a snapshot with gaps: not counted). */
  readonly byProvider: Readonly<Record<string, number>> | null;
}

export interface SnapshotReport {
  readonly job: string;
  readonly series: readonly AvailabilityPoint[];
  /** The latest usable vehicle snapshot's vehicles: lon, lat, label. */
  readonly vehicles: { readonly total: number; readonly shown: readonly (readonly [number, number, string])[]; readonly takenAt: Date | null };
}

/**
 * Of the report's run when it took vehicle snapshots, else of the job of the run's source that took the latest one;
 * undefined when no vehicle snapshot exists. The series covers the 24 hours before the latest snapshot.
 */
export async function loadSnapshotReport(db: Db, runId: string, source: string, cap: number): Promise<SnapshotReport | undefined> {
  const pick = await sql<{ job_name: string; run_id: string; taken_at: Date }>`
    SELECT job_name, run_id::text AS run_id, taken_at FROM efa.snapshots
    WHERE kind = 'vehicles' AND status <> 'failed' AND source = ${source}
      AND job_name = coalesce((SELECT job_name FROM efa.snapshots WHERE run_id = ${runId}::bigint AND kind = 'vehicles'), job_name)
    ORDER BY (run_id = ${runId}::bigint) DESC, taken_at DESC LIMIT 1`.execute(db.kysely);
  const latest = pick.rows[0];
  if (!latest) return undefined;
  const counts = await sql<{ taken_at: Date; status: AvailabilityPoint['status']; provider_id: string | null; available: number | null }>`
    SELECT s.taken_at, s.status, v.provider_id, count(v.*) FILTER (WHERE v.available IS NOT FALSE)::int AS available
    FROM efa.snapshots s
    LEFT JOIN efa.vehicle_snapshots v ON s.status = 'complete' AND v.run_id = s.run_id AND v.taken_at = s.taken_at
    WHERE s.kind = 'vehicles' AND s.source = ${source} AND s.job_name = ${latest.job_name}
      AND s.taken_at > ${latest.taken_at}::timestamptz - interval '24 hours' AND s.taken_at <= ${latest.taken_at}
    GROUP BY s.taken_at, s.status, v.provider_id ORDER BY s.taken_at, v.provider_id`.execute(db.kysely);
  const series = new Map<number, { at: Date; status: AvailabilityPoint['status']; byProvider: Record<string, number> | null }>();
  for (const r of counts.rows) {
    const at = new Date(r.taken_at);
    const point = series.get(at.getTime()) ?? { at, status: r.status, byProvider: r.status === 'complete' ? {} : null };
    if (point.byProvider && r.provider_id !== null) point.byProvider[r.provider_id] = r.available ?? 0;
    series.set(at.getTime(), point);
  }
  const rows = await sql<{ lon: number; lat: number; label: string; total: number }>`
    SELECT round(ST_X(geom)::numeric, 6)::float8 AS lon, round(ST_Y(geom)::numeric, 6)::float8 AS lat,
           concat_ws(' ', kind, provider_id, vehicle_key, CASE WHEN available = false THEN '(unavailable)' END) AS label,
           count(*) OVER ()::int AS total
    FROM efa.vehicle_snapshots WHERE taken_at = ${latest.taken_at} AND run_id = ${latest.run_id}::bigint
    ORDER BY vehicle_key LIMIT ${cap}`.execute(db.kysely);
  return {
    job: latest.job_name,
    series: [...series.values()],
    vehicles: { total: rows.rows[0]?.total ?? 0, shown: rows.rows.map((v) => [v.lon, v.lat, v.label] as const), takenAt: new Date(latest.taken_at) },
  };
}

const palette = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#666666'];
const px = (v: number): string => v.toFixed(1);

/** Available vehicles per provider over time; gaps (partial or failed snapshots) as grey bands, not zeros. */
export function renderAvailabilityChart(s: SnapshotReport): string {
  const points = s.series;
  if (points.length === 0) return '<p>No vehicle snapshot in the last 24 hours.</p>';
  const providers = [...new Set(points.flatMap((p) => Object.keys(p.byProvider ?? {})))].sort();
  const w = 900, h = 240, left = 50, right = 20, top = 10, bottom = 30;
  const t0 = points[0]?.at.getTime() ?? 0, t1 = Math.max(t0 + 60_000, points[points.length - 1]?.at.getTime() ?? 0);
  const max = Math.max(1, ...points.flatMap((p) => Object.values(p.byProvider ?? {})));
  const x = (t: number): number => left + ((t - t0) / (t1 - t0)) * (w - left - right);
  const y = (v: number): number => top + (1 - v / max) * (h - top - bottom);
  const gaps = points.filter((p) => p.byProvider === null).map((p) =>
    `<rect class="gap" x="${px(x(p.at.getTime()) - 2)}" y="${top}" width="4" height="${h - top - bottom}" fill="#bbb"><title>${esc(`${p.at.toISOString()}: snapshot ${p.status}, not counted`)}</title></rect>`);
  const lines = providers.map((prov, i) => {
    // A gap breaks the line: the count there is unknown, not zero.
    const segments: string[][] = [[]];
    for (const p of points) {
      if (p.byProvider === null) segments.push([]);
      else segments[segments.length - 1]?.push(`${px(x(p.at.getTime()))},${px(y(p.byProvider[prov] ?? 0))}`);
    }
    const color = palette[i % palette.length] ?? '#333';
    return segments.filter((seg) => seg.length > 0).map((seg) =>
      seg.length === 1
        ? `<circle cx="${seg[0]?.split(',')[0]}" cy="${seg[0]?.split(',')[1]}" r="2.5" fill="${color}"/>`
        : `<polyline fill="none" stroke="${color}" stroke-width="1.8" points="${seg.join(' ')}"><title>${esc(prov)}</title></polyline>`).join('');
  });
  const axis = `<line x1="${left}" y1="${h - bottom}" x2="${w - right}" y2="${h - bottom}" stroke="#999"/>` +
    `<text x="${left - 6}" y="${px(y(max) + 4)}" text-anchor="end">${num(max)}</text><text x="${left - 6}" y="${h - bottom + 4}" text-anchor="end">0</text>` +
    `<text x="${left}" y="${h - 8}">${esc(points[0]?.at.toISOString().slice(0, 16).replace('T', ' ') ?? '')} UTC</text>` +
    `<text x="${w - right}" y="${h - 8}" text-anchor="end">${esc(new Date(t1).toISOString().slice(0, 16).replace('T', ' '))} UTC</text>`;
  const legend = providers.map((p, i) => `<span class="key"><i style="background:${palette[i % palette.length]}"></i>${esc(p)}</span>`).join('') +
    '<span class="key"><i style="background:#bbb"></i>snapshot with gaps (not counted)</span>';
  return `<p class="legend">${legend}</p><svg class="chart availability" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${axis}${gaps.join('')}${lines.join('')}</svg>`;
}
