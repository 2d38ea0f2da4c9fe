-- after: efa.active_notices, efa.notice_lines, efa.stops
CREATE MATERIALIZED VIEW efa.stop_summary AS
  SELECT s.pin_key, s.stop_id, s.name, s.mot_types,
         coalesce(sl.line_count, 0)::int AS line_count,
         coalesce(an.notice_count, 0)::int AS active_notice_count,
         s.geom::geometry(Point, 4326) AS geom,
         s.source, s.fid, s.global_id,
         ST_X(s.geom) AS lon, ST_Y(s.geom) AS lat
  FROM efa.stops s
  LEFT JOIN (
    -- A line is its public number within its means of transport: efa.lines holds one row per line and
    -- direction (and per variant), which counted 22 at a stop that 11 lines serve.
    SELECT x.source, x.stop_id, count(DISTINCT (coalesce(l.mot, -1), l.number)) AS line_count
    FROM efa.stop_lines x
    JOIN efa.lines l ON l.source = x.source AND l.line_key = x.line_key AND l.deleted_at IS NULL
    WHERE x.deleted_at IS NULL
    GROUP BY x.source, x.stop_id
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
COMMENT ON MATERIALIZED VIEW efa.stop_summary IS 'One row per current stop (efa.stops, deleted_at IS NULL) with its lines and active notices, numeric lon/lat and the integer key fid. Materialized: as of its last refresh (at the end of each run; REFRESH MATERIALIZED VIEW efa.stop_summary by hand).';
COMMENT ON COLUMN efa.stop_summary.pin_key IS 'Key in efa.pins (unique; the stop_id when the stop has one).';
COMMENT ON COLUMN efa.stop_summary.stop_id IS 'EFA stop id (CoordInfo pins[].id).';
COMMENT ON COLUMN efa.stop_summary.name IS 'Stop name (CoordInfo pins[].name).';
COMMENT ON COLUMN efa.stop_summary.mot_types IS 'Means-of-transport ids of the stop (CoordInfo pins[].motTypes), sorted.';
COMMENT ON COLUMN efa.stop_summary.line_count IS 'Lines currently serving the stop: distinct (mot, number) of efa.lines over its current stop-lines (efa.stop_lines and efa.lines, deleted_at IS NULL). A line''s two directions count once (schema version 21; before, each line-direction counted).';
COMMENT ON COLUMN efa.stop_summary.active_notice_count IS 'Distinct notices in force on the refresh date (efa.active_notices) naming a line that serves the stop.';
COMMENT ON COLUMN efa.stop_summary.geom IS 'The stop''s Point (lon, lat), EPSG:4326.';
COMMENT ON COLUMN efa.stop_summary.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.stop_summary.fid IS 'Integer key (efa.pins.fid), unique: the key for QGIS and GDAL.';
COMMENT ON COLUMN efa.stop_summary.global_id IS 'Global stop id (IFOPT / DHID) where known.';
COMMENT ON COLUMN efa.stop_summary.lon IS 'Longitude of the stop (WGS84), for BI tools that plot numbers rather than geometries.';
COMMENT ON COLUMN efa.stop_summary.lat IS 'Latitude of the stop (WGS84).';
