import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.js';

/** Changes of one run in one relation (efa.changes_per_run). */
export interface RunRelationChanges {
  readonly runId: string;
  readonly job: string;
  readonly startedAt: Date;
  readonly relation: string;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
}

/** A stop whose name or position a run changed: the version it replaced and the one it wrote. */
export interface StopChange {
  readonly source: string;
  readonly pinKey: string;
  readonly stopId: string | null;
  readonly nameBefore: string;
  readonly nameAfter: string;
  readonly lonBefore: number;
  readonly latBefore: number;
  readonly lonAfter: number;
  readonly latAfter: number;
  /** Metres between the two positions (on the spheroid); 0 for a rename in place. */
  readonly movedM: number;
  /** When the new version became current (the start of the run that wrote it). */
  readonly at: Date;
  readonly runId: string;
}

export interface WhatChanged {
  readonly since: Date;
  readonly until: Date;
  readonly days: number;
  readonly runs: readonly RunRelationChanges[];
  readonly stops: readonly StopChange[];
  /** Stop changes in the window beyond those listed (the list is capped). */
  readonly moreStops: number;
}

/**
 * What changed in a source over the `days` before `until`: the change counts of every run of the
 * source that started in the window, and the stops renamed or moved, before and after, newest first
 * (from efa.pins_history: a superseded STOP version and the version that replaced it).
 */
export async function loadWhatChanged(
  db: Kysely<Database>,
  q: { readonly source: string; readonly until: Date; readonly days?: number; readonly maxStops?: number },
): Promise<WhatChanged> {
  const days = q.days ?? 30;
  const maxStops = q.maxStops ?? 200;
  const since = new Date(q.until.getTime() - days * 86_400_000);
  const runs = await sql<{ run_id: string; job_name: string; started_at: Date; relation: string; inserted: number; updated: number; deleted: number }>`
    SELECT c.run_id::text AS run_id, c.job_name, c.started_at, c.relation, c.inserted, c.updated, c.deleted
    FROM efa.changes_per_run c JOIN efa.runs r ON r.run_id = c.run_id
    WHERE r.source = ${q.source} AND c.started_at > ${since} AND c.started_at <= ${q.until}
    ORDER BY c.started_at, c.run_id, c.relation`.execute(db);
  const stops = await sql<{
    source: string; pin_key: string; stop_id: string | null; name_before: string; name_after: string;
    lon_before: number; lat_before: number; lon_after: number; lat_after: number; moved_m: number; at: Date; run_id: string; total: string;
  }>`
    SELECT h.source, h.pin_key, h.id AS stop_id, h.name AS name_before, n.name AS name_after,
           ST_X(h.geom) AS lon_before, ST_Y(h.geom) AS lat_before, ST_X(n.geom) AS lon_after, ST_Y(n.geom) AS lat_after,
           ST_Distance(h.geom::geography, n.geom::geography) AS moved_m, upper(h.valid) AS at, h.replaced_by::text AS run_id,
           count(*) OVER ()::text AS total
    FROM efa.pins_history h
    CROSS JOIN LATERAL (
      SELECT x.name, x.geom FROM efa.pins x WHERE x.source = h.source AND x.pin_key = h.pin_key AND x.changed_run = h.replaced_by
      UNION ALL
      SELECT y.name, y.geom FROM efa.pins_history y WHERE y.source = h.source AND y.pin_key = h.pin_key AND y.changed_run = h.replaced_by
      LIMIT 1
    ) n
    WHERE h.source = ${q.source} AND h.type = 'STOP' AND h.ended_by = 'update'
      AND h.valid && tstzrange(${since}, ${q.until}, '[]') AND upper(h.valid) > ${since} AND upper(h.valid) <= ${q.until}
      AND (h.name IS DISTINCT FROM n.name OR NOT ST_Equals(h.geom, n.geom))
    ORDER BY upper(h.valid) DESC, h.pin_key
    LIMIT ${maxStops}`.execute(db);
  const total = Number(stops.rows[0]?.total ?? 0);
  return {
    since,
    until: q.until,
    days,
    runs: runs.rows.map((r) => ({ runId: r.run_id, job: r.job_name, startedAt: new Date(r.started_at), relation: r.relation, inserted: r.inserted, updated: r.updated, deleted: r.deleted })),
    stops: stops.rows.map((s) => ({
      source: s.source, pinKey: s.pin_key, stopId: s.stop_id, nameBefore: s.name_before, nameAfter: s.name_after,
      lonBefore: s.lon_before, latBefore: s.lat_before, lonAfter: s.lon_after, latAfter: s.lat_after,
      movedM: s.moved_m, at: new Date(s.at), runId: s.run_id,
    })),
    moreStops: Math.max(0, total - stops.rows.length),
  };
}
