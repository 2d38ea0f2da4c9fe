-- after:
CREATE OR REPLACE VIEW efa.stops AS
  SELECT id AS stop_id, pin_key, name, mot_types, geom, attrs, first_run, changed_run, deleted_at,
         source, fid, global_id
  FROM efa.pins WHERE type = 'STOP';
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
COMMENT ON COLUMN efa.stops.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.stops.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.stops.global_id IS 'Global stop id (IFOPT / DHID) where known; joins stops across sources (see efa.stop_places).';
