-- efa-sync schema, version 13: efa.stop_summary gains numeric lon/lat like the current_* views (BI
-- tools plot those, not a geometry), and the comments of efa.operating_areas name fid, not area_key,
-- as the integer key GDAL and QGIS use (area_key is text; GDAL's FID must be an integer).
--
-- A materialized view cannot be replaced: it is dropped and created again with its indexes and
-- comments, and filled (as REFRESH would), so its rows are there at once.

DROP MATERIALIZED VIEW IF EXISTS efa.stop_summary;

COMMENT ON TABLE efa.operating_areas IS 'Operating areas of sharing providers from OpArea answers (providers[].areas[], or rapidJSON operatingAreas[]; geometry with operatingZoneGeometry=1). fid is the integer key for QGIS and GDAL; (source, area_key) and (source, provider_id, area_id) are unique.';
COMMENT ON COLUMN efa.operating_areas.area_key IS 'provider_id || ''/'' || area_id: the area''s text key within its source (efa.changes and efa.run_seen name it). GDAL and QGIS use fid, the integer key.';
