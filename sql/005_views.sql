-- efa-sync schema, version 5: the views with sources, views that BI tools and QGIS use as they
-- are (current rows only, numeric lon/lat, an integer key), parking fields as columns, and
-- efa.stop_places (one physical stop across deployments, by its global id).
-- Every view keeps the columns it had, so analysts' queries keep working; `source` is added.

DROP MATERIALIZED VIEW IF EXISTS efa.stop_summary;
DROP MATERIALIZED VIEW IF EXISTS efa.tile_coverage;
DROP VIEW IF EXISTS efa.active_notices;
DROP VIEW IF EXISTS efa.notice_lines;
DROP VIEW IF EXISTS efa.changes_per_run;
DROP VIEW IF EXISTS efa.stops;
DROP VIEW IF EXISTS efa.pois;

