-- after:
CREATE OR REPLACE VIEW efa.parking_occupancy_weekday_hour AS
  SELECT r.source, r.job_name, r.parking_key,
         extract(isodow FROM r.hour)::int AS weekday,
         extract(hour FROM r.hour)::int AS hour_of_day,
         (array_agg(r.name ORDER BY r.name_at DESC))[1] AS name,
         max(r.capacity) AS capacity,
         (count(DISTINCT r.hour::date) FILTER (WHERE r.readings > 0))::int AS days,
         sum(r.readings)::int AS readings,
         round(sum(r.free_sum)::numeric / nullif(sum(r.readings), 0), 2) AS free_avg,
         min(r.free_min) AS free_min,
         max(r.free_max) AS free_max,
         round(sum(r.occupancy_sum) / nullif(sum(r.occupancy_readings), 0), 4) AS occupancy_avg,
         sum(r.profile_readings)::int AS profile_readings,
         round(sum(r.profile_free_sum)::numeric / nullif(sum(r.profile_readings), 0), 2) AS profile_free_avg,
         sum(r.readings_impossible)::int AS readings_impossible
  FROM efa.parking_hourly r
  GROUP BY r.source, r.job_name, r.parking_key, extract(isodow FROM r.hour), extract(hour FROM r.hour);
COMMENT ON VIEW efa.parking_occupancy_weekday_hour IS 'Occupancy per parking object by weekday (ISO, 1 = Monday) and hour of day over all complete snapshots kept: the typical week, from measured (REALTIME) figures; profile figures apart. A figure outside [0, capacity] is never averaged (readings_impossible counts it).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.source IS 'The deployment.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.parking_key IS 'The parking object.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.weekday IS 'ISO weekday, 1 = Monday (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.hour_of_day IS 'Hour of day, 0-23 (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.name IS 'Its latest name.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.capacity IS 'Places in total (the largest capacity in the slot that is a count, 0 or more).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.days IS 'Days with measured readings in this slot.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.readings IS 'Measured (REALTIME) readings in this slot.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_avg IS 'Free places, mean of the measured readings.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_min IS 'Fewest free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_max IS 'Most free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.occupancy_avg IS 'Occupied share of the measured readings: the mean of 1 - free / capacity over the readings with a capacity above 0; between 0 and 1.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.profile_readings IS 'PROFILE figures in this slot (forecasts from a day curve).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.profile_free_avg IS 'Free places, mean of the PROFILE figures (a forecast, apart from the measurements).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.readings_impossible IS 'Free-places figures in this slot left out because they lie outside [0, capacity] (stored before schema version 19; newer ones are NULL, with the figure in efa.rejects).';
