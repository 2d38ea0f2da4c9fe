-- efa-sync schema, version 13: efa.stop_summary gains numeric lon/lat like the current_* views (BI
-- tools plot those, not a geometry), and the comments of efa.operating_areas name fid, not area_key,
-- as the integer key GDAL and QGIS use (area_key is text; GDAL's FID must be an integer).
--
-- A materialized view cannot be replaced: it is dropped and created again with its indexes and
-- comments, and filled (as REFRESH would), so its rows are there at once.
-- The views and functions themselves are definitions now, one file each (sql/views, sql/functions),
-- applied after the numbered migrations (src/db/definitions.ts).
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).

DROP MATERIALIZED VIEW IF EXISTS efa.stop_summary;

