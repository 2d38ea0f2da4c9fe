-- after:
CREATE OR REPLACE VIEW efa.vehicle_availability_hourly AS
  SELECT r.source, r.job_name, r.hour, r.provider_id, r.kind, h.snapshots, h.snapshots_incomplete,
         round(r.vehicles_sum::numeric / h.snapshots, 2) AS vehicles_avg,
         round(r.available_sum::numeric / h.snapshots, 2) AS available_avg,
         -- A snapshot of the hour without any of them counts as zero.
         CASE WHEN r.snapshots < h.snapshots THEN 0 ELSE r.available_min END AS available_min,
         r.available_max
  FROM efa.vehicle_hourly r
  JOIN efa.snapshot_hour_counts h ON h.source = r.source AND h.job_name = r.job_name AND h.kind = 'vehicles' AND h.hour = r.hour;
COMMENT ON VIEW efa.vehicle_availability_hourly IS 'Sharing vehicles per provider, kind and hour: the mean over the hour''s complete snapshots of vehicles seen and of vehicles available (not known to be unavailable), and the least and most available in one snapshot.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.vehicle_availability_hourly.provider_id IS 'The operator.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.kind IS 'Vehicle kind (CAR, BIKE, MINIVEHICLE, …).';
COMMENT ON COLUMN efa.vehicle_availability_hourly.snapshots IS 'Complete snapshots in the hour (the divisor of the means).';
COMMENT ON COLUMN efa.vehicle_availability_hourly.snapshots_incomplete IS 'Snapshots of the hour left out because they had gaps.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.vehicles_avg IS 'Vehicles seen per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.available_avg IS 'Vehicles available per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_availability_hourly.available_min IS 'Fewest available in one complete snapshot of the hour (0 when a snapshot had none).';
COMMENT ON COLUMN efa.vehicle_availability_hourly.available_max IS 'Most available in one complete snapshot of the hour.';
