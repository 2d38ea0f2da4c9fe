-- after:
CREATE OR REPLACE VIEW efa.parking_occupancy_hourly AS
  SELECT r.source, r.job_name, r.hour, r.parking_key, r.name, r.capacity,
         h.snapshots, h.snapshots_incomplete,
         r.readings,
         round(r.free_sum::numeric / nullif(r.readings, 0), 2) AS free_avg,
         r.free_min, r.free_max,
         round(r.occupancy_sum / nullif(r.occupancy_readings, 0), 4) AS occupancy_avg,
         r.profile_readings,
         round(r.profile_free_sum::numeric / nullif(r.profile_readings, 0), 2) AS profile_free_avg,
         r.unknown_readings,
         r.readings_impossible
  FROM efa.parking_hourly r
  JOIN efa.snapshot_hour_counts h ON h.source = r.source AND h.job_name = r.job_name AND h.kind = 'parking' AND h.hour = r.hour;
COMMENT ON VIEW efa.parking_occupancy_hourly IS 'Occupancy per parking object and hour over the hour''s complete snapshots: measured free places (REALTIME figures only: mean, least, most) and the mean occupied share; profile figures (forecasts from a day curve) counted and averaged apart, never mixed in. A figure outside [0, capacity] is never averaged (readings_impossible counts it).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.parking_key IS 'The parking object.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.name IS 'Its latest name.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.capacity IS 'Places in total (the largest capacity of the hour that is a count, 0 or more).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.snapshots IS 'Complete snapshots in the hour.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.snapshots_incomplete IS 'Snapshots of the hour left out because they had gaps.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.readings IS 'Complete snapshots with a measured (REALTIME) free-places value for this object.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_avg IS 'Free places, mean of the measured (REALTIME) readings.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_min IS 'Fewest free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_max IS 'Most free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.occupancy_avg IS 'Occupied share of the measured readings: the mean of 1 - free / capacity over the readings with a capacity above 0; between 0 and 1.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.profile_readings IS 'Figures of the hour whose source is PROFILE: forecasts from the object''s day curve, not measurements.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.profile_free_avg IS 'Free places, mean of the PROFILE figures (a forecast; compare, never add to free_avg).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.unknown_readings IS 'Figures of the hour whose source the answer did not name (UNKNOWN): counted in no mean.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.readings_impossible IS 'Free-places figures of the hour left out of every mean and bound because they lie outside [0, capacity] (stored before schema version 19; newer ones are NULL, with the figure in efa.rejects).';
