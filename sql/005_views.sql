-- efa-sync schema, version 5: the views with sources, views that BI tools and QGIS use as they
-- are (current rows only, numeric lon/lat, an integer key), parking fields as columns, and
-- efa.stop_places (one physical stop across deployments, by its global id).
-- Every view keeps the columns it had, so analysts' queries keep working; `source` is added.

DROP MATERIALIZED VIEW efa.stop_summary;
DROP MATERIALIZED VIEW efa.tile_coverage;
DROP VIEW efa.active_notices;
DROP VIEW efa.notice_lines;
DROP VIEW efa.changes_per_run;
DROP VIEW efa.stops;
DROP VIEW efa.pois;

CREATE VIEW efa.stops AS
  SELECT id AS stop_id, pin_key, name, mot_types, geom, attrs, first_run, changed_run, deleted_at,
         source, fid, global_id
  FROM efa.pins WHERE type = 'STOP';

CREATE VIEW efa.pois AS
  SELECT pin_key, type, id, name, geom, attrs, first_run, changed_run, deleted_at, source, fid
  FROM efa.pins WHERE type IN ('POI_POINT', 'POI_AREA');

CREATE VIEW efa.notice_lines AS
  SELECT n.source, n.notice_id, r.line_ref, l.line_key
  FROM efa.notices n
  CROSS JOIN LATERAL unnest(n.lines) AS r(line_ref)
  LEFT JOIN efa.lines l
    ON l.source = n.source AND l.deleted_at IS NULL
   AND (l.line_id = r.line_ref OR starts_with(l.line_id, r.line_ref || ':'));

CREATE VIEW efa.active_notices AS
  SELECT n.notice_id, n.type, n.severity, n.title, n.text, n.valid_from, n.valid_to, n.lines,
         coalesce(m.line_keys, '{}'::text[]) AS line_keys,
         coalesce(m.line_names, '{}'::text[]) AS line_names,
         n.attrs, n.first_run, n.changed_run, n.source, n.fid
  FROM efa.notices n
  LEFT JOIN LATERAL (
    SELECT array_agg(DISTINCT l.line_key ORDER BY l.line_key) AS line_keys,
           array_agg(DISTINCT l.name ORDER BY l.name) AS line_names
    FROM efa.notice_lines nl JOIN efa.lines l ON l.source = nl.source AND l.line_key = nl.line_key
    WHERE nl.source = n.source AND nl.notice_id = n.notice_id
  ) m ON true
  WHERE n.ended_at IS NULL
    AND (n.valid_from IS NULL OR n.valid_from <= current_date)
    AND (n.valid_to IS NULL OR n.valid_to >= current_date);

CREATE VIEW efa.changes_per_run AS
  SELECT c.run_id, r.job_name, r.status, r.started_at, r.finished_at, c.relation,
         count(*) FILTER (WHERE c.op = 'insert')::int AS inserted,
         count(*) FILTER (WHERE c.op = 'update')::int AS updated,
         count(*) FILTER (WHERE c.op = 'delete')::int AS deleted,
         count(*) FILTER (WHERE c.detail = 'revived')::int AS revived,
         count(*)::int AS total,
         r.source
  FROM efa.changes c
  JOIN efa.runs r ON r.run_id = c.run_id
  GROUP BY c.run_id, r.job_name, r.status, r.started_at, r.finished_at, c.relation, r.source;

CREATE MATERIALIZED VIEW efa.stop_summary AS
  SELECT s.pin_key, s.stop_id, s.name, s.mot_types,
         coalesce(sl.line_count, 0)::int AS line_count,
         coalesce(an.notice_count, 0)::int AS active_notice_count,
         s.geom::geometry(Point, 4326) AS geom,
         s.source, s.fid, s.global_id
  FROM efa.stops s
  LEFT JOIN (
    SELECT source, stop_id, count(*) AS line_count FROM efa.stop_lines WHERE deleted_at IS NULL GROUP BY source, stop_id
  ) sl ON sl.source = s.source AND sl.stop_id = s.stop_id
  LEFT JOIN (
    SELECT x.source, x.stop_id, count(DISTINCT a.notice_id) AS notice_count
    FROM efa.active_notices a
    JOIN efa.notice_lines nl ON nl.source = a.source AND nl.notice_id = a.notice_id
    JOIN efa.stop_lines x ON x.source = nl.source AND x.line_key = nl.line_key AND x.deleted_at IS NULL
    GROUP BY x.source, x.stop_id
  ) an ON an.source = s.source AND an.stop_id = s.stop_id
  WHERE s.deleted_at IS NULL;
CREATE UNIQUE INDEX stop_summary_fid_uidx ON efa.stop_summary (fid);
CREATE INDEX stop_summary_geom_gix ON efa.stop_summary USING gist (geom);

CREATE MATERIALIZED VIEW efa.tile_coverage AS
  WITH latest AS (
    SELECT DISTINCT ON (r.job_name) r.run_id, r.job_name, r.source
    FROM efa.runs r
    WHERE EXISTS (SELECT 1 FROM efa.run_tiles t WHERE t.run_id = r.run_id AND t.operation = 'coordInfo')
    ORDER BY r.job_name, r.started_at DESC, r.run_id DESC
  )
  SELECT t.run_tile_id, l.job_name, t.run_id, t.tile_id, t.parent_id, t.depth, t.status, t.hits,
         t.status = 'capped' AS capped, t.status = 'failed' AS failed, t.attempts, t.duration_ms, t.error,
         CASE WHEN t.status = 'pending' THEN NULL ELSE t.fetched_at END AS last_fetched_at,
         t.bbox::geometry(Polygon, 4326) AS geom,
         l.source
  FROM latest l
  JOIN efa.run_tiles t ON t.run_id = l.run_id AND t.operation = 'coordInfo' AND t.status <> 'split';
CREATE UNIQUE INDEX tile_coverage_run_tile_uidx ON efa.tile_coverage (run_tile_id);
CREATE INDEX tile_coverage_geom_gix ON efa.tile_coverage USING gist (geom);

-- One physical stop across deployments: the live stops that carry a global id, grouped by it.
CREATE VIEW efa.stop_places AS
  WITH per_source AS (
    SELECT global_id, source, array_agg(id ORDER BY id) AS stop_ids, min(name) AS name,
           ST_Collect(geom) AS geoms, count(*) AS n
    FROM efa.pins
    WHERE type = 'STOP' AND global_id IS NOT NULL AND deleted_at IS NULL
    GROUP BY global_id, source
  )
  SELECT global_id,
         (array_agg(name ORDER BY source))[1] AS name,
         ST_Centroid(ST_Collect(geoms))::geometry(Point, 4326) AS geom,
         array_agg(source ORDER BY source) AS sources,
         jsonb_object_agg(source, to_jsonb(stop_ids)) AS stop_ids,
         sum(n)::int AS stop_count
  FROM per_source
  GROUP BY global_id;

-- Current-only views for BI tools (Metabase, Superset: numeric lon/lat) and map servers (QGIS,
-- pg_featureserv, martin: an integer key, fid).
CREATE VIEW efa.current_stops AS
  SELECT fid, source, id AS stop_id, global_id, name, mot_types,
         ST_X(geom) AS lon, ST_Y(geom) AS lat, geom, changed_run
  FROM efa.pins WHERE type = 'STOP' AND deleted_at IS NULL;

CREATE VIEW efa.current_pois AS
  SELECT fid, source, pin_key, type, id, name, ST_X(geom) AS lon, ST_Y(geom) AS lat, geom, attrs, changed_run
  FROM efa.pins WHERE type IN ('POI_POINT', 'POI_AREA') AND deleted_at IS NULL;

-- Parking objects with the parking fields of the answer as columns. Deployments name them in
-- different ways; the first name present wins. Realtime occupancy only where the job asked for it.
CREATE VIEW efa.current_parking AS
  SELECT p.fid, p.source, p.pin_key, p.id, p.name,
         coalesce(p.attrs ->> 'parkingObjectType', p.attrs ->> 'type', p.attrs ->> 'kind') AS kind,
         CASE WHEN coalesce(p.attrs ->> 'capacity', p.attrs ->> 'totalSpaces') ~ '^[0-9]+$'
              THEN coalesce(p.attrs ->> 'capacity', p.attrs ->> 'totalSpaces')::int END AS capacity,
         CASE WHEN coalesce(p.attrs -> 'realtime' ->> 'free', p.attrs ->> 'freeSpaces') ~ '^[0-9]+$'
              THEN coalesce(p.attrs -> 'realtime' ->> 'free', p.attrs ->> 'freeSpaces')::int END AS free_places,
         CASE WHEN p.attrs ? 'realtime' OR p.attrs ? 'freeSpaces' THEN r.finished_at END AS free_places_at,
         p.attrs ->> 'charge' AS charge,
         ST_X(p.geom) AS lon, ST_Y(p.geom) AS lat, p.geom, p.changed_run
  FROM efa.pins p
  LEFT JOIN efa.runs r ON r.run_id = p.changed_run
  WHERE p.type = 'PARKING' AND p.deleted_at IS NULL;

CREATE VIEW efa.current_operating_areas AS
  SELECT a.fid, a.source, a.provider_id, p.name AS provider_name, p.vehicle_type, a.area_id, a.name,
         a.in_region, ST_X(ST_PointOnSurface(a.geom)) AS lon, ST_Y(ST_PointOnSurface(a.geom)) AS lat, a.geom
  FROM efa.operating_areas a
  LEFT JOIN efa.sharing_providers p ON p.source = a.source AND p.provider_id = a.provider_id
  WHERE a.deleted_at IS NULL AND a.geom IS NOT NULL;

-- The comments of the recreated views (as in 003), and of what is new.
COMMENT ON VIEW efa.stops IS 'The STOP pins of efa.pins (CoordInfo type STOP), deleted ones included (filter deleted_at IS NULL).';
COMMENT ON COLUMN efa.stops.stop_id IS 'CoordInfo pins[].id of the stop: the EFA stop id (joins efa.stop_lines.stop_id).';
COMMENT ON COLUMN efa.stops.pin_key IS 'Key in efa.pins (equal to stop_id when the stop has an id).';
COMMENT ON COLUMN efa.stops.name IS 'CoordInfo pins[].name: the stop''s display name.';
COMMENT ON COLUMN efa.stops.mot_types IS 'CoordInfo pins[].motTypes: means-of-transport ids serving the stop, sorted.';
COMMENT ON COLUMN efa.stops.geom IS 'CoordInfo pins[].coord as a Point (lon, lat), EPSG:4326.';
COMMENT ON COLUMN efa.stops.attrs IS 'Every other field of the pin as received (JSON).';
COMMENT ON COLUMN efa.stops.first_run IS 'The run that first stored the stop.';
COMMENT ON COLUMN efa.stops.changed_run IS 'The last run that changed the stop''s content.';
COMMENT ON COLUMN efa.stops.deleted_at IS 'When a complete sweep of its place no longer found the stop; NULL while it exists.';
COMMENT ON VIEW efa.pois IS 'The points of interest of efa.pins (CoordInfo types POI_POINT and POI_AREA), deleted ones included.';
COMMENT ON COLUMN efa.pois.pin_key IS 'Key in efa.pins: the EFA id, or a hash of type, name and rounded coordinate (POIs often have no id).';
COMMENT ON COLUMN efa.pois.type IS 'CoordInfo pins[].type: POI_POINT or POI_AREA.';
COMMENT ON COLUMN efa.pois.id IS 'CoordInfo pins[].id; NULL when absent.';
COMMENT ON COLUMN efa.pois.name IS 'CoordInfo pins[].name.';
COMMENT ON COLUMN efa.pois.geom IS 'CoordInfo pins[].coord as a Point (lon, lat), EPSG:4326 (for POI_AREA: the representative point the API returns).';
COMMENT ON COLUMN efa.pois.attrs IS 'Every other field of the pin as received (JSON).';
COMMENT ON COLUMN efa.pois.first_run IS 'The run that first stored the POI.';
COMMENT ON COLUMN efa.pois.changed_run IS 'The last run that changed the POI''s content.';
COMMENT ON COLUMN efa.pois.deleted_at IS 'When a complete sweep of its place no longer found the POI; NULL while it exists.';
COMMENT ON VIEW efa.notice_lines IS 'The logical link efa.notices.lines[] -> efa.lines: one row per notice and line identifier it names, with the matching line (line_id equal to the identifier or starting with it followed by '':''). line_key is NULL when no current line matches.';
COMMENT ON COLUMN efa.notice_lines.notice_id IS 'efa.notices.notice_id.';
COMMENT ON COLUMN efa.notice_lines.line_ref IS 'One element of AddInfo infos[].lines as stored in efa.notices.lines.';
COMMENT ON COLUMN efa.notice_lines.line_key IS 'efa.lines.line_key of a non-deleted line matching line_ref; NULL when none matches. One row per match.';
COMMENT ON VIEW efa.active_notices IS 'Notices in force today: not ended (ended_at IS NULL) and valid_from <= current_date <= valid_to (a missing bound is open), one row per notice, with the lines it names resolved against efa.lines.';
COMMENT ON COLUMN efa.active_notices.notice_id IS 'AddInfo infos[].id.';
COMMENT ON COLUMN efa.active_notices.type IS 'AddInfo infos[].type.';
COMMENT ON COLUMN efa.active_notices.severity IS 'AddInfo infos[].severity.';
COMMENT ON COLUMN efa.active_notices.title IS 'AddInfo infos[].title.';
COMMENT ON COLUMN efa.active_notices.text IS 'AddInfo infos[].text.';
COMMENT ON COLUMN efa.active_notices.valid_from IS 'AddInfo infos[].validFrom; NULL = open.';
COMMENT ON COLUMN efa.active_notices.valid_to IS 'AddInfo infos[].validTo, inclusive; NULL = open.';
COMMENT ON COLUMN efa.active_notices.lines IS 'AddInfo infos[].lines: line identifiers as received.';
COMMENT ON COLUMN efa.active_notices.line_keys IS 'efa.lines.line_key of the current lines matching those identifiers, sorted; empty when none matches.';
COMMENT ON COLUMN efa.active_notices.line_names IS 'efa.lines.name of those lines, sorted and distinct; empty when none matches.';
COMMENT ON COLUMN efa.active_notices.attrs IS 'Every other field of the notice as received (JSON).';
COMMENT ON COLUMN efa.active_notices.first_run IS 'The run that first stored the notice.';
COMMENT ON COLUMN efa.active_notices.changed_run IS 'The last run that changed the notice''s content.';
COMMENT ON VIEW efa.changes_per_run IS 'efa.changes counted per run and relation: what each run inserted, updated, revived and deleted.';
COMMENT ON COLUMN efa.changes_per_run.run_id IS 'The run (efa.runs).';
COMMENT ON COLUMN efa.changes_per_run.job_name IS 'efa.runs.job_name of the run.';
COMMENT ON COLUMN efa.changes_per_run.status IS 'efa.runs.status of the run.';
COMMENT ON COLUMN efa.changes_per_run.started_at IS 'efa.runs.started_at of the run.';
COMMENT ON COLUMN efa.changes_per_run.finished_at IS 'efa.runs.finished_at of the run.';
COMMENT ON COLUMN efa.changes_per_run.relation IS 'Entity table name (efa.changes.relation).';
COMMENT ON COLUMN efa.changes_per_run.inserted IS 'Rows inserted (op = insert).';
COMMENT ON COLUMN efa.changes_per_run.updated IS 'Rows updated (op = update), revivals included.';
COMMENT ON COLUMN efa.changes_per_run.deleted IS 'Rows marked deleted or ended (op = delete).';
COMMENT ON COLUMN efa.changes_per_run.revived IS 'Of the updates, rows that came back after being marked deleted (detail = revived).';
COMMENT ON COLUMN efa.changes_per_run.total IS 'All changes of the run in the relation.';
COMMENT ON MATERIALIZED VIEW efa.stop_summary IS 'One row per current stop (efa.stops, deleted_at IS NULL) with its lines and active notices. Materialized: as of its last refresh (at the end of each run; REFRESH MATERIALIZED VIEW efa.stop_summary by hand).';
COMMENT ON COLUMN efa.stop_summary.pin_key IS 'Key in efa.pins (unique; the stop_id when the stop has one).';
COMMENT ON COLUMN efa.stop_summary.stop_id IS 'EFA stop id (CoordInfo pins[].id).';
COMMENT ON COLUMN efa.stop_summary.name IS 'Stop name (CoordInfo pins[].name).';
COMMENT ON COLUMN efa.stop_summary.mot_types IS 'Means-of-transport ids of the stop (CoordInfo pins[].motTypes), sorted.';
COMMENT ON COLUMN efa.stop_summary.line_count IS 'Lines currently serving the stop (efa.stop_lines, deleted_at IS NULL).';
COMMENT ON COLUMN efa.stop_summary.active_notice_count IS 'Distinct notices in force on the refresh date (efa.active_notices) naming a line that serves the stop.';
COMMENT ON COLUMN efa.stop_summary.geom IS 'The stop''s Point (lon, lat), EPSG:4326.';
COMMENT ON MATERIALIZED VIEW efa.tile_coverage IS 'Coverage of the latest run of each job that swept CoordInfo: its leaf tiles (every status but split: a split tile is covered by its children) with hits and bbox. Capped or failed tiles are where objects may be missing. Materialized: as of its last refresh (at the end of each run).';
COMMENT ON COLUMN efa.tile_coverage.run_tile_id IS 'efa.run_tiles.run_tile_id (unique).';
COMMENT ON COLUMN efa.tile_coverage.job_name IS 'The job (efa.runs.job_name).';
COMMENT ON COLUMN efa.tile_coverage.run_id IS 'The job''s latest run with CoordInfo tiles.';
COMMENT ON COLUMN efa.tile_coverage.tile_id IS 'CoordInfo tile id (efa.run_tiles.tile_id).';
COMMENT ON COLUMN efa.tile_coverage.parent_id IS 'The tile it was split from; NULL for a root tile.';
COMMENT ON COLUMN efa.tile_coverage.depth IS 'Number of splits from the root tile.';
COMMENT ON COLUMN efa.tile_coverage.status IS 'done, capped, failed, or pending (planned but not fetched: the run was interrupted there).';
COMMENT ON COLUMN efa.tile_coverage.hits IS 'Pins in the tile''s CoordInfo answer.';
COMMENT ON COLUMN efa.tile_coverage.capped IS 'True when the answer hit max and the tile was too small to split: objects beyond the cap may be missing.';
COMMENT ON COLUMN efa.tile_coverage.failed IS 'True when the tile failed after retries: its objects were kept, none marked deleted.';
COMMENT ON COLUMN efa.tile_coverage.attempts IS 'HTTP attempts for the tile.';
COMMENT ON COLUMN efa.tile_coverage.duration_ms IS 'Milliseconds from the first request to the stored result.';
COMMENT ON COLUMN efa.tile_coverage.error IS 'Last error of a failed tile.';
COMMENT ON COLUMN efa.tile_coverage.last_fetched_at IS 'When the tile''s result was recorded (efa.run_tiles.fetched_at); NULL for a pending tile.';
COMMENT ON COLUMN efa.tile_coverage.geom IS 'The tile''s bounding box (Polygon), EPSG:4326.';
