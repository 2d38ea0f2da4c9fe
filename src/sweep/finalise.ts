import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../db/tables.js';
import type { Job, ResolvedRegion } from '../job/index.js';
import type { BBox } from '../tiling/index.js';
import { sweptPinTypes } from './plan.js';
import type { RelationStats } from './stats.js';

/**
 * The end of a run: what it no longer found is marked gone, but only where it looked completely.
 * - pins: owned (half-open, as the tiles store them) by a CoordInfo tile that is `done` in this run
 *   (not capped, not failed, not pending), of a type the job sweeps, inside the region;
 * - stop_lines: of stops whose ServingLines request is `done` in this run;
 * - notices: when this run's AddInfo (current) is `done`, those this job saw before;
 * - providers and areas: when every OpArea request of this run is `done`, those this job saw before;
 * - lines: not seen, seen by this job before, no stop serves them any more, ServingLines complete.
 * Every mark lands in efa.changes as a delete. Returns the number marked per relation.
 */
export async function markGone(
  trx: Transaction<Database>,
  ctx: { runId: string; job: Job; region: ResolvedRegion; regionBBox: BBox },
): Promise<Record<string, number>> {
  const { runId, job } = ctx;
  const marked: Record<string, number> = {};
  const logged = async (relation: string, update: ReturnType<typeof sql>): Promise<void> => {
    const r = await sql<{ n: number }>`
      WITH gone AS (${update}), logged AS (
        INSERT INTO efa.changes (run_id, relation, key, op, detail)
        SELECT ${runId}::bigint, ${relation}, k, 'delete', ${relation === 'notices' ? 'ended' : null} FROM gone
      ) SELECT count(*)::int AS n FROM gone`.execute(trx);
    marked[relation] = r.rows[0]?.n ?? 0;
  };
  type KeyExpression = ReturnType<typeof sql.ref> | RawBuilder<unknown>;
  const seenThisRun = (relation: string, key: KeyExpression) =>
    sql`EXISTS (SELECT 1 FROM efa.run_seen s WHERE s.run_id = ${runId}::bigint AND s.relation = ${relation} AND s.key = ${key})`;
  const seenByJobBefore = (relation: string, key: ReturnType<typeof sql.ref>) =>
    sql`EXISTS (SELECT 1 FROM efa.run_seen s JOIN efa.runs r ON r.run_id = s.run_id
                WHERE r.job_name = ${job.name} AND s.relation = ${relation} AND s.key = ${key})`;
  const unitsComplete = (operation: string) =>
    sql`(EXISTS (SELECT 1 FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = ${operation} AND status = 'done')
         AND NOT EXISTS (SELECT 1 FROM efa.run_tiles WHERE run_id = ${runId}::bigint AND operation = ${operation} AND status <> 'done'))`;

  const coord = job.sweeps.coord;
  if (coord) {
    const { any, types } = sweptPinTypes(coord);
    const [, , maxX, maxY] = ctx.regionBBox;
    const region = 'geojson' in ctx.region ? JSON.stringify(ctx.region.geojson) : null;
    await logged(
      'pins',
      sql`UPDATE efa.pins p SET deleted_at = now()
        WHERE p.deleted_at IS NULL
          AND (p.type = ANY(${types}::text[]) OR (${any}::boolean AND p.type <> 'PARKING'))
          AND EXISTS (
            SELECT 1 FROM efa.run_tiles t
            WHERE t.run_id = ${runId}::bigint AND t.operation = 'coordInfo' AND t.status = 'done' AND t.bbox && p.geom
              AND ST_X(p.geom) >= ST_XMin(t.bbox) AND (ST_X(p.geom) < ST_XMax(t.bbox) OR ST_XMax(t.bbox) >= ${maxX}::float8)
              AND ST_Y(p.geom) >= ST_YMin(t.bbox) AND (ST_Y(p.geom) < ST_YMax(t.bbox) OR ST_YMax(t.bbox) >= ${maxY}::float8))
          AND (${region}::text IS NULL OR ST_Intersects(ST_SetSRID(ST_GeomFromGeoJSON(${region}::text), 4326), p.geom))
          AND NOT ${seenThisRun('pins', sql.ref('p.pin_key'))}
        RETURNING p.pin_key AS k`,
    );
  }
  if (job.sweeps.servingLines?.forStops) {
    await logged(
      'stop_lines',
      sql`UPDATE efa.stop_lines sl SET deleted_at = now()
        WHERE sl.deleted_at IS NULL
          AND EXISTS (SELECT 1 FROM efa.run_tiles t WHERE t.run_id = ${runId}::bigint AND t.operation = 'servingLines'
                        AND t.status = 'done' AND t.tile_id = 'stop:' || sl.stop_id)
          AND NOT ${seenThisRun('stop_lines', sql`sl.stop_id || '|' || sl.line_key`)}
        RETURNING sl.stop_id || '|' || sl.line_key AS k`,
    );
  }
  if (job.sweeps.servingLines) {
    await logged(
      'lines',
      sql`UPDATE efa.lines l SET deleted_at = now()
        WHERE l.deleted_at IS NULL AND ${unitsComplete('servingLines')}
          AND NOT ${seenThisRun('lines', sql.ref('l.line_key'))}
          AND ${seenByJobBefore('lines', sql.ref('l.line_key'))}
          AND NOT EXISTS (SELECT 1 FROM efa.stop_lines sl WHERE sl.line_key = l.line_key AND sl.deleted_at IS NULL)
        RETURNING l.line_key AS k`,
    );
  }
  if (job.sweeps.addInfo?.publicationStatus === 'current') {
    await logged(
      'notices',
      sql`UPDATE efa.notices n SET ended_at = now()
        WHERE n.ended_at IS NULL AND ${unitsComplete('addInfo')}
          AND NOT ${seenThisRun('notices', sql.ref('n.notice_id'))}
          AND ${seenByJobBefore('notices', sql.ref('n.notice_id'))}
        RETURNING n.notice_id AS k`,
    );
  }
  if (job.sweeps.opArea) {
    for (const [relation, key] of [['operating_areas', 'area_key'], ['sharing_providers', 'provider_id']] as const) {
      await logged(
        relation,
        sql`UPDATE ${sql.table(`efa.${relation}`)} x SET deleted_at = now()
          WHERE x.deleted_at IS NULL AND ${unitsComplete('opArea')}
            AND NOT ${seenThisRun(relation, sql.ref(`x.${key}`))}
            AND ${seenByJobBefore(relation, sql.ref(`x.${key}`))}
          RETURNING x.${sql.ref(key)} AS k`,
      );
    }
  }
  return marked;
}

/** Rows inserted/updated/deleted/unchanged per relation, from the change log and what the run saw. */
export async function runStats(db: Kysely<Database>, runId: string): Promise<Record<string, RelationStats>> {
  const changes = await sql<{ relation: string; op: string; n: number }>`
    SELECT relation, op, count(*)::int AS n FROM efa.changes WHERE run_id = ${runId}::bigint GROUP BY relation, op`.execute(db);
  const seen = await sql<{ relation: string; n: number }>`
    SELECT relation, count(*)::int AS n FROM efa.run_seen WHERE run_id = ${runId}::bigint GROUP BY relation`.execute(db);
  const out: Record<string, RelationStats> = {};
  const of = (r: string): RelationStats => (out[r] ??= { inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
  for (const c of changes.rows) {
    const s = of(c.relation);
    if (c.op === 'insert') s.inserted = c.n;
    if (c.op === 'update') s.updated = c.n;
    if (c.op === 'delete') s.deleted = c.n;
  }
  for (const s of seen.rows) {
    const r = of(s.relation);
    r.unchanged = Math.max(0, s.n - r.inserted - r.updated);
  }
  return out;
}

/**
 * run_seen grows by every key every night; deletion detection needs this run's keys and "seen by
 * this job before", which a few recent runs answer. Older runs' keys of this job are dropped.
 */
export async function pruneSeen(db: Kysely<Database>, jobName: string, keepRuns = 7): Promise<void> {
  await sql`
    DELETE FROM efa.run_seen s USING efa.runs r
    WHERE s.run_id = r.run_id AND r.job_name = ${jobName} AND r.status <> 'running'
      AND r.run_id NOT IN (SELECT run_id FROM efa.runs WHERE job_name = ${jobName} ORDER BY run_id DESC LIMIT ${keepRuns})`.execute(db);
}
