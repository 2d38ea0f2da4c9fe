-- after:
CREATE OR REPLACE VIEW efa.pois AS
  SELECT pin_key, type, id, name, geom, attrs, first_run, changed_run, deleted_at, source, fid
  FROM efa.pins WHERE type IN ('POI_POINT', 'POI_AREA');
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
COMMENT ON COLUMN efa.pois.source IS 'The deployment (source) of the POI.';
COMMENT ON COLUMN efa.pois.fid IS 'Integer key (efa.pins.fid).';
