-- after:
CREATE OR REPLACE VIEW efa.latest_vehicles AS
  SELECT v.fid, v.source, v.vehicle_key, v.provider_id, v.area_id, v.kind, v.engine, v.location_type,
         v.charge_percent, v.fuel_percent, v.available, v.taken_at AS seen_at, v.run_id,
         -- The latest usable snapshot of each vehicle job, found per job through an index (computed
         -- once, not per vehicle, and not by sorting every snapshot ever taken).
         v.run_id IN (
           SELECT l.run_id
           FROM (SELECT DISTINCT source, job_name FROM efa.snapshot_hour_counts WHERE kind = 'vehicles') j
           CROSS JOIN LATERAL (
             SELECT s.run_id FROM efa.snapshots s
             WHERE s.job_name = j.job_name AND s.kind = 'vehicles' AND s.source = j.source AND s.status <> 'failed'
             ORDER BY s.taken_at DESC LIMIT 1
           ) l
         ) AS in_latest_snapshot,
         ST_X(v.geom) AS lon, ST_Y(v.geom) AS lat, v.geom
  FROM efa.vehicle_latest v;
COMMENT ON VIEW efa.latest_vehicles IS 'The latest position of each sharing vehicle (its provider and its id) ever seen within the retention, and whether the latest usable snapshot of its source saw it.';
COMMENT ON COLUMN efa.latest_vehicles.fid IS 'Integer key for GIS tools (the row''s fid in efa.vehicle_snapshots).';
COMMENT ON COLUMN efa.latest_vehicles.source IS 'The deployment.';
COMMENT ON COLUMN efa.latest_vehicles.vehicle_key IS 'The vehicle''s id (unique with provider_id).';
COMMENT ON COLUMN efa.latest_vehicles.provider_id IS 'The operator.';
COMMENT ON COLUMN efa.latest_vehicles.area_id IS 'The operating area.';
COMMENT ON COLUMN efa.latest_vehicles.kind IS 'Vehicle kind.';
COMMENT ON COLUMN efa.latest_vehicles.engine IS 'Engine type.';
COMMENT ON COLUMN efa.latest_vehicles.location_type IS 'Location type.';
COMMENT ON COLUMN efa.latest_vehicles.charge_percent IS 'Battery charge when last seen.';
COMMENT ON COLUMN efa.latest_vehicles.fuel_percent IS 'Fuel level when last seen.';
COMMENT ON COLUMN efa.latest_vehicles.available IS 'Availability when last seen (null: unknown).';
COMMENT ON COLUMN efa.latest_vehicles.seen_at IS 'The snapshot that last saw it.';
COMMENT ON COLUMN efa.latest_vehicles.run_id IS 'That snapshot''s run.';
COMMENT ON COLUMN efa.latest_vehicles.in_latest_snapshot IS 'The latest complete or partial snapshot of its job saw it.';
COMMENT ON COLUMN efa.latest_vehicles.lon IS 'Longitude (for BI tools).';
COMMENT ON COLUMN efa.latest_vehicles.lat IS 'Latitude (for BI tools).';
COMMENT ON COLUMN efa.latest_vehicles.geom IS 'Position (Point, EPSG:4326).';
