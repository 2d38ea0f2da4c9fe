-- efa-sync schema, version 9: views over the snapshot time series for dashboards.
-- Only complete snapshots (efa.snapshots.status = 'complete') count: a snapshot with a failed or
-- capped tile has a gap, and a gap must never read as "no vehicles there" or "all places free".
-- Each view says how many snapshots of the hour it counted and how many it left out.
-- Hours and weekdays are those of the session's TimeZone (SET TimeZone = 'Europe/Berlin').

CREATE VIEW efa.snapshot_hours AS
  SELECT source, job_name, kind, date_trunc('hour', taken_at) AS hour,
         count(*) FILTER (WHERE status = 'complete')::int AS snapshots,
         count(*) FILTER (WHERE status <> 'complete')::int AS snapshots_incomplete
  FROM efa.snapshots
  GROUP BY source, job_name, kind, date_trunc('hour', taken_at);

CREATE VIEW efa.vehicle_availability_hourly AS
  WITH per_snapshot AS (
    SELECT s.source, s.job_name, s.taken_at, v.provider_id, v.kind,
           count(*)::int AS vehicles,
           count(*) FILTER (WHERE v.available IS NOT FALSE)::int AS available
    FROM efa.vehicle_snapshots v
    JOIN efa.snapshots s ON s.run_id = v.run_id AND s.kind = 'vehicles' AND s.status = 'complete'
    GROUP BY s.source, s.job_name, s.taken_at, v.provider_id, v.kind
  )
  SELECT p.source, p.job_name, h.hour, p.provider_id, p.kind, h.snapshots, h.snapshots_incomplete,
         round(sum(p.vehicles)::numeric / h.snapshots, 2) AS vehicles_avg,
         round(sum(p.available)::numeric / h.snapshots, 2) AS available_avg,
         -- A snapshot of the hour without any of them counts as zero.
         CASE WHEN count(*) < h.snapshots THEN 0 ELSE min(p.available) END AS available_min,
         max(p.available) AS available_max
  FROM per_snapshot p
  JOIN efa.snapshot_hours h ON h.source = p.source AND h.job_name = p.job_name AND h.kind = 'vehicles'
                           AND h.hour = date_trunc('hour', p.taken_at)
  GROUP BY p.source, p.job_name, h.hour, p.provider_id, p.kind, h.snapshots, h.snapshots_incomplete;

-- Hexagons of 250 m edge in Web Mercator (EPSG:3857; about 165 m on the ground at 48° N), by
-- PostGIS ST_HexagonGrid; a vehicle on an edge counts in one cell (the lowest i, j).
CREATE VIEW efa.vehicle_hex_hourly AS
  WITH cells AS (
    SELECT s.source, s.job_name, date_trunc('hour', s.taken_at) AS hour, v.kind, c.i, c.j, c.geom,
           count(*)::int AS vehicles,
           count(*) FILTER (WHERE v.available IS NOT FALSE)::int AS available
    FROM efa.vehicle_snapshots v
    JOIN efa.snapshots s ON s.run_id = v.run_id AND s.kind = 'vehicles' AND s.status = 'complete'
    CROSS JOIN LATERAL (
      SELECT h.i, h.j, h.geom FROM ST_HexagonGrid(250, ST_Transform(v.geom, 3857)) h
      WHERE ST_Intersects(h.geom, ST_Transform(v.geom, 3857)) ORDER BY h.i, h.j LIMIT 1
    ) c
    GROUP BY s.source, s.job_name, date_trunc('hour', s.taken_at), v.kind, c.i, c.j, c.geom
  )
  SELECT c.source, c.job_name, c.hour, c.kind, c.i AS cell_i, c.j AS cell_j,
         h.snapshots, h.snapshots_incomplete,
         round(c.vehicles::numeric / h.snapshots, 2) AS vehicles_avg,
         round(c.available::numeric / h.snapshots, 2) AS available_avg,
         ST_Transform(c.geom, 4326)::geometry(Polygon, 4326) AS geom
  FROM cells c
  JOIN efa.snapshot_hours h ON h.source = c.source AND h.job_name = c.job_name AND h.kind = 'vehicles' AND h.hour = c.hour;

CREATE VIEW efa.latest_vehicles AS
  WITH latest AS (
    SELECT DISTINCT ON (source, job_name) source, job_name, run_id, taken_at
    FROM efa.snapshots WHERE kind = 'vehicles' AND status <> 'failed'
    ORDER BY source, job_name, taken_at DESC
  )
  SELECT DISTINCT ON (v.source, v.vehicle_key)
         v.fid, v.source, v.vehicle_key, v.provider_id, v.area_id, v.kind, v.engine, v.location_type,
         v.charge_percent, v.fuel_percent, v.available, v.taken_at AS seen_at, v.run_id,
         EXISTS (SELECT 1 FROM latest l WHERE l.run_id = v.run_id) AS in_latest_snapshot,
         ST_X(v.geom) AS lon, ST_Y(v.geom) AS lat, v.geom
  FROM efa.vehicle_snapshots v
  ORDER BY v.source, v.vehicle_key, v.taken_at DESC;

CREATE VIEW efa.parking_occupancy_hourly AS
  SELECT s.source, s.job_name, h.hour, p.parking_key,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity) AS capacity,
         h.snapshots, h.snapshots_incomplete,
         count(p.free)::int AS readings,
         round(avg(p.free), 2) AS free_avg, min(p.free) AS free_min, max(p.free) AS free_max,
         round(1 - avg(p.free) / nullif(max(p.capacity), 0), 4) AS occupancy_avg
  FROM efa.parking_snapshots p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  JOIN efa.snapshot_hours h ON h.source = s.source AND h.job_name = s.job_name AND h.kind = 'parking'
                           AND h.hour = date_trunc('hour', p.taken_at)
  GROUP BY s.source, s.job_name, h.hour, p.parking_key, h.snapshots, h.snapshots_incomplete;

CREATE VIEW efa.parking_occupancy_weekday_hour AS
  SELECT s.source, s.job_name, p.parking_key,
         extract(isodow FROM p.taken_at)::int AS weekday,
         extract(hour FROM p.taken_at)::int AS hour_of_day,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity) AS capacity,
         count(DISTINCT p.taken_at::date)::int AS days,
         count(p.free)::int AS readings,
         round(avg(p.free), 2) AS free_avg, min(p.free) AS free_min, max(p.free) AS free_max,
         round(1 - avg(p.free) / nullif(max(p.capacity), 0), 4) AS occupancy_avg
  FROM efa.parking_snapshots p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  GROUP BY s.source, s.job_name, p.parking_key, extract(isodow FROM p.taken_at), extract(hour FROM p.taken_at);

COMMENT ON VIEW efa.snapshot_hours IS 'Snapshots per source, job, kind and hour: how many were complete (counted by the other views) and how many were not (left out: they have gaps).';
COMMENT ON COLUMN efa.snapshot_hours.source IS 'The deployment.';
COMMENT ON COLUMN efa.snapshot_hours.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.snapshot_hours.kind IS 'vehicles or parking.';
COMMENT ON COLUMN efa.snapshot_hours.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.snapshot_hours.snapshots IS 'Complete snapshots in the hour.';
COMMENT ON COLUMN efa.snapshot_hours.snapshots_incomplete IS 'Partial or failed snapshots in the hour, not counted.';

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

COMMENT ON VIEW efa.vehicle_hex_hourly IS 'Sharing vehicles per hexagonal cell (250 m edge in EPSG:3857, PostGIS ST_HexagonGrid), kind and hour, averaged over the hour''s complete snapshots: the heat map. Cells without vehicles have no row.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.vehicle_hex_hourly.kind IS 'Vehicle kind.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.cell_i IS 'Column of the hexagon in ST_HexagonGrid(250) over EPSG:3857.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.cell_j IS 'Row of the hexagon in ST_HexagonGrid(250) over EPSG:3857.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.snapshots IS 'Complete snapshots in the hour (the divisor).';
COMMENT ON COLUMN efa.vehicle_hex_hourly.snapshots_incomplete IS 'Snapshots of the hour left out because they had gaps.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.vehicles_avg IS 'Vehicles in the cell per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.available_avg IS 'Available vehicles in the cell per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.geom IS 'The hexagon (Polygon, EPSG:4326).';

COMMENT ON VIEW efa.latest_vehicles IS 'The latest position of each sharing vehicle ever seen (within the retention), and whether the latest usable snapshot of its source saw it.';
COMMENT ON COLUMN efa.latest_vehicles.fid IS 'Integer key for GIS tools (the row''s fid in efa.vehicle_snapshots).';
COMMENT ON COLUMN efa.latest_vehicles.source IS 'The deployment.';
COMMENT ON COLUMN efa.latest_vehicles.vehicle_key IS 'The vehicle''s id.';
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

COMMENT ON VIEW efa.parking_occupancy_hourly IS 'Occupancy per parking object and hour over the hour''s complete snapshots: free places (mean, least, most) and the mean occupied share.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.parking_key IS 'The parking object.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.name IS 'Its latest name.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.capacity IS 'Places in total.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.snapshots IS 'Complete snapshots in the hour.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.snapshots_incomplete IS 'Snapshots of the hour left out because they had gaps.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.readings IS 'Complete snapshots with a free-places value for this object.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_avg IS 'Free places, mean of the readings.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_min IS 'Fewest free places in one reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_max IS 'Most free places in one reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.occupancy_avg IS 'Occupied share, 1 - free_avg / capacity.';

COMMENT ON VIEW efa.parking_occupancy_weekday_hour IS 'Occupancy per parking object by weekday (ISO, 1 = Monday) and hour of day over all complete snapshots kept: the typical week.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.source IS 'The deployment.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.parking_key IS 'The parking object.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.weekday IS 'ISO weekday, 1 = Monday (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.hour_of_day IS 'Hour of day, 0-23 (session time zone).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.name IS 'Its latest name.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.capacity IS 'Places in total.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.days IS 'Days with readings in this slot.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.readings IS 'Readings (complete snapshots with a free-places value).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_avg IS 'Free places, mean of the readings.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_min IS 'Fewest free places in one reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_max IS 'Most free places in one reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.occupancy_avg IS 'Occupied share, 1 - free_avg / capacity.';
