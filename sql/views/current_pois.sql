-- after:
CREATE OR REPLACE VIEW efa.current_pois AS
  SELECT fid, source, pin_key, type, id, name, ST_X(geom) AS lon, ST_Y(geom) AS lat, geom, attrs, changed_run
  FROM efa.pins WHERE type IN ('POI_POINT', 'POI_AREA') AND deleted_at IS NULL;
COMMENT ON VIEW efa.current_pois IS 'Live points of interest only, with numeric lon/lat and the integer key fid.';
COMMENT ON COLUMN efa.current_pois.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_pois.source IS 'The deployment (source) of the POI.';
COMMENT ON COLUMN efa.current_pois.pin_key IS 'The POI''s key within its source.';
COMMENT ON COLUMN efa.current_pois.type IS 'POI_POINT or POI_AREA.';
COMMENT ON COLUMN efa.current_pois.id IS 'The POI''s EFA id, where it has one.';
COMMENT ON COLUMN efa.current_pois.name IS 'POI name.';
COMMENT ON COLUMN efa.current_pois.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_pois.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_pois.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_pois.attrs IS 'Every other field of the answer.';
COMMENT ON COLUMN efa.current_pois.changed_run IS 'The run that last changed the POI.';
