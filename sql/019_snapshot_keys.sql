-- efa-sync schema, version 19: a sharing vehicle is its provider and its id; a parking figure is a
-- count of places or nothing.
--
-- Providers number their vehicles themselves (1…N, as GBFS feeds do; the EFA SharingRefId is
-- <ID>:<OperatorID>:<OpAreaID>). Keyed by its id alone, vehicle 1 of a second provider was the
-- "same" vehicle as the first's and was dropped. Rows are now one per snapshot, provider and id:
-- the primary key is (taken_at, fid) (the partition key first, as PostgreSQL requires), and the
-- vehicle's key is a unique constraint (taken_at, run_id, provider_id, vehicle_key) with NULLS NOT
-- DISTINCT, as provider_id is NULL where an answer names no provider. The run, not the source, is in
-- the key: one snapshot is one run, and two jobs of one source may see one vehicle at one instant.
-- Rows stored before keep working: they were unique by (taken_at, source, vehicle_key), so they are
-- by the new key too, and their provider_id is the one they were stored with.
ALTER TABLE efa.vehicle_snapshots DROP CONSTRAINT vehicle_snapshots_pkey;
ALTER TABLE efa.vehicle_snapshots ADD CONSTRAINT vehicle_snapshots_pkey PRIMARY KEY (taken_at, fid);
ALTER TABLE efa.vehicle_snapshots ADD CONSTRAINT vehicle_snapshots_vehicle_key
  UNIQUE NULLS NOT DISTINCT (taken_at, run_id, provider_id, vehicle_key);
DROP INDEX efa.vehicle_snapshots_key_idx;
CREATE INDEX vehicle_snapshots_key_idx ON efa.vehicle_snapshots (source, provider_id, vehicle_key, taken_at DESC);

-- Parking objects likewise one per snapshot: the run in the key instead of the source.
ALTER TABLE efa.parking_snapshots DROP CONSTRAINT parking_snapshots_pkey;
ALTER TABLE efa.parking_snapshots ADD CONSTRAINT parking_snapshots_pkey PRIMARY KEY (taken_at, run_id, parking_key);

COMMENT ON COLUMN efa.vehicle_snapshots.fid IS 'Integer key for GIS tools; with taken_at the primary key (PostgreSQL allows no unique constraint without the partition key).';
COMMENT ON COLUMN efa.vehicle_snapshots.vehicle_key IS 'The vehicle''s id as sent (its SharingRefId <ID>:<OperatorID>:<OpAreaID> where the answer has that form). Unique per snapshot with provider_id: providers number their vehicles themselves.';
COMMENT ON COLUMN efa.vehicle_snapshots.provider_id IS 'The operator (provider) id: the answer''s provider field, else the SharingRefId''s second part; NULL where the answer names none. With vehicle_key, the vehicle''s identity.';

-- A vehicle is its provider and its id: the latest position of each.
CREATE OR REPLACE VIEW efa.latest_vehicles AS
  WITH latest AS (
    SELECT DISTINCT ON (source, job_name) source, job_name, run_id, taken_at
    FROM efa.snapshots WHERE kind = 'vehicles' AND status <> 'failed'
    ORDER BY source, job_name, taken_at DESC
  )
  SELECT DISTINCT ON (v.source, v.provider_id, v.vehicle_key)
         v.fid, v.source, v.vehicle_key, v.provider_id, v.area_id, v.kind, v.engine, v.location_type,
         v.charge_percent, v.fuel_percent, v.available, v.taken_at AS seen_at, v.run_id,
         EXISTS (SELECT 1 FROM latest l WHERE l.run_id = v.run_id) AS in_latest_snapshot,
         ST_X(v.geom) AS lon, ST_Y(v.geom) AS lat, v.geom
  FROM efa.vehicle_snapshots v
  ORDER BY v.source, v.provider_id, v.vehicle_key, v.taken_at DESC;
COMMENT ON VIEW efa.latest_vehicles IS 'The latest position of each sharing vehicle (its provider and its id) ever seen within the retention, and whether the latest usable snapshot of its source saw it.';
COMMENT ON COLUMN efa.latest_vehicles.vehicle_key IS 'The vehicle''s id (unique with provider_id).';

-- Parking figures: a reading is a count of places in [0, capacity]. New snapshots store an impossible
-- figure as NULL and write it to efa.rejects with its reason (src/snapshot/parking-figures.ts); the
-- views also leave out any such figure stored before (free -7, 10^9 free of 10 places, capacity -1),
-- and the occupied share is the mean of each reading's share, so it lies in [0, 1].
CREATE OR REPLACE VIEW efa.parking_occupancy_hourly AS
  SELECT s.source, s.job_name, h.hour, p.parking_key,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity_ok) AS capacity,
         h.snapshots, h.snapshots_incomplete,
         count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
         round(avg(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
         min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_min,
         max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
         round(avg(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 4) AS occupancy_avg,
         count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
         round(avg(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg,
         count(p.free_ok) FILTER (WHERE p.data_source = 'UNKNOWN')::int AS unknown_readings,
         count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)::int AS readings_impossible
  FROM (
    SELECT x.*,
           CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
           CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
    FROM efa.parking_snapshots x
  ) p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  JOIN efa.snapshot_hours h ON h.source = s.source AND h.job_name = s.job_name AND h.kind = 'parking'
                           AND h.hour = date_trunc('hour', p.taken_at)
  GROUP BY s.source, s.job_name, h.hour, p.parking_key, h.snapshots, h.snapshots_incomplete;

CREATE OR REPLACE VIEW efa.parking_occupancy_weekday_hour AS
  SELECT s.source, s.job_name, p.parking_key,
         extract(isodow FROM p.taken_at)::int AS weekday,
         extract(hour FROM p.taken_at)::int AS hour_of_day,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity_ok) AS capacity,
         (count(DISTINCT p.taken_at::date) FILTER (WHERE p.data_source = 'REALTIME' AND p.free_ok IS NOT NULL))::int AS days,
         count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
         round(avg(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
         min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_min,
         max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
         round(avg(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 4) AS occupancy_avg,
         count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
         round(avg(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg,
         count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)::int AS readings_impossible
  FROM (
    SELECT x.*,
           CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
           CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
    FROM efa.parking_snapshots x
  ) p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  GROUP BY s.source, s.job_name, p.parking_key, extract(isodow FROM p.taken_at), extract(hour FROM p.taken_at);

COMMENT ON VIEW efa.parking_occupancy_hourly IS 'Occupancy per parking object and hour over the hour''s complete snapshots: measured free places (REALTIME figures only: mean, least, most) and the mean occupied share; profile figures (forecasts from a day curve) counted and averaged apart, never mixed in. A figure outside [0, capacity] is never averaged (readings_impossible counts it).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.capacity IS 'Places in total (the largest capacity of the hour that is a count, 0 or more).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.occupancy_avg IS 'Occupied share of the measured readings: the mean of 1 - free / capacity over the readings with a capacity above 0; between 0 and 1.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.readings_impossible IS 'Free-places figures of the hour left out of every mean and bound because they lie outside [0, capacity] (stored before schema version 19; newer ones are NULL, with the figure in efa.rejects).';
COMMENT ON VIEW efa.parking_occupancy_weekday_hour IS 'Occupancy per parking object by weekday (ISO, 1 = Monday) and hour of day over all complete snapshots kept: the typical week, from measured (REALTIME) figures; profile figures apart. A figure outside [0, capacity] is never averaged (readings_impossible counts it).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.capacity IS 'Places in total (the largest capacity in the slot that is a count, 0 or more).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.occupancy_avg IS 'Occupied share of the measured readings: the mean of 1 - free / capacity over the readings with a capacity above 0; between 0 and 1.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.readings_impossible IS 'Free-places figures in this slot left out because they lie outside [0, capacity] (stored before schema version 19; newer ones are NULL, with the figure in efa.rejects).';
COMMENT ON COLUMN efa.parking_snapshots.free IS 'Free places (real-time occupancy), a count in [0, capacity]; NULL when the answer had none, or had one that is impossible or text where the dialect sends numbers (the figure as sent and why are in efa.rejects of the run).';
COMMENT ON COLUMN efa.parking_snapshots.occupied IS 'Occupied places, where the answer says, a count in [0, capacity]; NULL as for free.';
COMMENT ON COLUMN efa.parking_snapshots.capacity IS 'Places in total, a count of 0 or more; NULL when the answer had none or an impossible one (see efa.rejects).';
