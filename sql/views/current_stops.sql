-- after:
-- Current-only views for BI tools (Metabase, Superset: numeric lon/lat) and map servers (QGIS,
-- pg_featureserv, martin: an integer key, fid).
CREATE OR REPLACE VIEW efa.current_stops AS
  SELECT fid, source, id AS stop_id, global_id, name, mot_types,
         ST_X(geom) AS lon, ST_Y(geom) AS lat, geom, changed_run
  FROM efa.pins WHERE type = 'STOP' AND deleted_at IS NULL;
COMMENT ON VIEW efa.current_stops IS 'Live stops only (not deleted), with numeric lon/lat for BI pin maps (Metabase, Superset) and the integer key fid for QGIS, pg_featureserv and martin.';
COMMENT ON COLUMN efa.current_stops.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_stops.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.current_stops.stop_id IS 'The stop''s EFA id, as the deployment sent it.';
COMMENT ON COLUMN efa.current_stops.global_id IS 'Global stop id (IFOPT / DHID) where known.';
COMMENT ON COLUMN efa.current_stops.name IS 'Stop name.';
COMMENT ON COLUMN efa.current_stops.mot_types IS 'Means-of-transport ids of the stop.';
COMMENT ON COLUMN efa.current_stops.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_stops.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_stops.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_stops.changed_run IS 'The run that last changed the stop.';
