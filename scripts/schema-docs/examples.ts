/**
 * The example queries of docs/schema.md; the schema-docs test runs each one on both databases, and
 * test/docs/sql-examples.test.ts on the warehouse `npm start` leaves (with a second source), where each
 * must answer rows unless it says `-- may be empty: <why>`. Dates come from the warehouse's own runs
 * and keys from a subquery, never written out: a new warehouse has neither March nor STOP:de:08111:6008.
 * A key is unique only within its source (two deployments may share a stop id): group and join by both.
 */
export interface ExampleQuery {
  readonly title: string;
  readonly sql: string;
}

export const exampleQueries: readonly ExampleQuery[] = [
  {
    title: 'Stops inside each operating area',
    sql: `SELECT a.source, a.provider_id, a.area_id, a.name, count(s.pin_key) AS stops
FROM efa.operating_areas a
LEFT JOIN efa.stops s ON s.source = a.source AND s.deleted_at IS NULL AND ST_Intersects(a.geom, s.geom)
WHERE a.deleted_at IS NULL
GROUP BY a.source, a.area_key, a.provider_id, a.area_id, a.name
ORDER BY a.source, stops DESC, a.area_key;`,
  },
  {
    title: 'Lines per stop',
    sql: `SELECT s.source, s.stop_id, s.name, count(*) AS line_count, array_agg(DISTINCT l.name ORDER BY l.name) AS lines
FROM efa.stops s
JOIN efa.stop_lines sl ON sl.source = s.source AND sl.stop_id = s.stop_id AND sl.deleted_at IS NULL
JOIN efa.lines l ON l.source = sl.source AND l.line_key = sl.line_key
WHERE s.deleted_at IS NULL
GROUP BY s.source, s.stop_id, s.name
ORDER BY line_count DESC, s.name;
-- or, precomputed at the end of each run: SELECT * FROM efa.stop_summary ORDER BY line_count DESC;`,
  },
  {
    title: 'Notices valid today, with the lines they name',
    sql: `SELECT source, notice_id, type, severity, title, valid_from, valid_to, line_names
FROM efa.active_notices
ORDER BY source, valid_to NULLS LAST, notice_id;`,
  },
  {
    title: 'What changed last night',
    sql: `-- per relation, for each job's latest finished run
SELECT c.*
FROM efa.changes_per_run c
WHERE c.run_id IN (SELECT DISTINCT ON (job_name) run_id FROM efa.runs
                   WHERE status IN ('succeeded', 'partial') ORDER BY job_name, started_at DESC)
ORDER BY c.job_name, c.relation;
-- the rows themselves, for the last 24 hours
SELECT c.relation, c.op, c.detail, c.key, r.job_name, c.at
FROM efa.changes c JOIN efa.runs r ON r.run_id = c.run_id
WHERE c.at >= now() - interval '1 day'
ORDER BY c.relation, c.op, c.key;`,
  },
  {
    title: 'Where the latest sweep may have missed objects',
    sql: `-- may be empty: a sweep whose every tile was answered completely missed nothing
SELECT source, job_name, tile_id, status, hits, attempts, error, last_fetched_at
FROM efa.tile_coverage
WHERE capped OR failed OR status = 'pending'
ORDER BY job_name, tile_id;`,
  },
  {
    title: 'One stop across deployments (sources), by its global id',
    sql: `-- may be empty: with one source (npm start's demo alone) no stop is in two
SELECT global_id, name, sources, stop_ids, ST_AsText(geom) AS where_
FROM efa.stop_places
WHERE cardinality(sources) > 1
ORDER BY name
LIMIT 20;`,
  },
  {
    title: 'Stops as they were after the first night (the warehouse as of any time)',
    sql: `-- every relation with history has efa.<relation>_as_of(at): its live rows as they were then
-- (any time works: '2026-03-01', now() - interval '30 days'; here the end of the first finished run)
SELECT source, id AS stop_id, name, geom, version_from, version_to
FROM efa.pins_as_of((SELECT min(finished_at) FROM efa.runs WHERE status IN ('succeeded', 'partial')))
WHERE type = 'STOP'
ORDER BY source, name;`,
  },
  {
    title: 'Stops moved more than 50 m since the first night',
    sql: `-- may be empty: a warehouse of one night has seen no stop move
-- where each stop stood after the first night beside where it stands now (net of moves in between)
SELECT n.source, n.id AS stop_id, o.name AS name_then, n.name AS name_now,
       round(ST_Distance(o.geom::geography, n.geom::geography)::numeric, 1) AS moved_m
FROM efa.pins_as_of((SELECT min(finished_at) FROM efa.runs WHERE status IN ('succeeded', 'partial'))) o
JOIN efa.pins_as_of(now()) n ON n.source = o.source AND n.pin_key = o.pin_key
WHERE n.type = 'STOP' AND NOT ST_DWithin(o.geom::geography, n.geom::geography, 50)
ORDER BY moved_m DESC;`,
  },
  {
    title: 'What changed in the last week, and every version of one object',
    sql: `-- added, removed and changed keys with the old and the new row as JSON (any two times: '2026-03-01', '2026-03-31')
SELECT source, change, key, old ->> 'name' AS name_before, new ->> 'name' AS name_after
FROM efa.diff('pins', now() - interval '7 days', now())
ORDER BY source, change, key;
-- one stop's versions, oldest first (ended_by NULL: the current one); a key is unique within its
-- source, so give both: efa.pins_versions('STOP:de:08111:6008', 'vvs'), here the first stop by name
SELECT v.source, v.name, ST_AsText(v.geom) AS where_, v.version_from, v.version_to, v.ended_by
FROM (SELECT source, pin_key FROM efa.stops WHERE deleted_at IS NULL ORDER BY name, source LIMIT 1) s
CROSS JOIN LATERAL efa.pins_versions(s.pin_key, s.source) v;`,
  },
];
