-- efa-sync schema, version 28: the snapshot views read hourly roll-ups kept as snapshots arrive.
-- The views of version 9 and 11 aggregated the whole series at every query, joined to efa.snapshots
-- on run_id: no predicate reached the partition key, so a question about one hour read every day kept
-- (30 days of 5-minute snapshots of 5,000 vehicles: 8-10 s per dashboard query, latest_vehicles 161 s).
-- Now each snapshot adds its figures to small hourly tables in its own transaction
-- (efa.rollup_snapshot, called by the writer), the views read those tables, and the latest position of
-- each vehicle is one row of efa.vehicle_latest. The views keep their columns and meaning; hours are
-- UTC hours (identical to the session's hours wherever its offset is whole hours, as in Europe).

ALTER TABLE efa.snapshots ADD COLUMN rolled_up boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN efa.snapshots.rolled_up IS 'Its figures are in the hourly roll-ups (efa.snapshot_hour_counts, efa.vehicle_hourly, efa.vehicle_hex_hourly_cells with efa.hex_cells, efa.parking_hourly) and its vehicles in efa.vehicle_latest: added once, in the transaction that stored it.';
-- What the next snapshot plans from (previousSnapshot) and what a resumed writer has not rolled up yet.
CREATE INDEX IF NOT EXISTS snapshots_job_kind_taken_idx ON efa.snapshots (job_name, kind, taken_at DESC);
CREATE INDEX IF NOT EXISTS snapshots_not_rolled_up_idx ON efa.snapshots (run_id) WHERE NOT rolled_up;

CREATE TABLE efa.snapshot_hour_counts (
  source               text NOT NULL,
  job_name             text NOT NULL,
  kind                 text NOT NULL,
  hour                 timestamptz NOT NULL,
  snapshots            integer NOT NULL DEFAULT 0,
  snapshots_incomplete integer NOT NULL DEFAULT 0,
  PRIMARY KEY (source, job_name, kind, hour)
);
CREATE INDEX snapshot_hour_counts_hour_idx ON efa.snapshot_hour_counts (hour);
COMMENT ON TABLE efa.snapshot_hour_counts IS 'Snapshots per source, job, kind and UTC hour, complete and not: the roll-up behind efa.snapshot_hours.';

CREATE TABLE efa.vehicle_hourly (
  source         text NOT NULL,
  job_name       text NOT NULL,
  hour           timestamptz NOT NULL,
  provider_id    text,
  kind           text,
  snapshots      integer NOT NULL,
  vehicles_sum   bigint NOT NULL,
  available_sum  bigint NOT NULL,
  available_min  integer NOT NULL,
  available_max  integer NOT NULL
);
CREATE UNIQUE INDEX vehicle_hourly_key ON efa.vehicle_hourly (source, job_name, hour, provider_id, kind) NULLS NOT DISTINCT;
CREATE INDEX vehicle_hourly_hour_idx ON efa.vehicle_hourly (hour);
COMMENT ON TABLE efa.vehicle_hourly IS 'Per source, job, UTC hour, provider and vehicle kind, over the complete snapshots of the hour that saw at least one such vehicle: how many snapshots, the sums of vehicles and of available ones, the least and most available in one snapshot. The roll-up behind efa.vehicle_availability_hourly.';

CREATE TABLE efa.vehicle_hex_hourly_cells (
  source         text NOT NULL,
  job_name       text NOT NULL,
  hour           timestamptz NOT NULL,
  kind           text,
  cell_i         integer NOT NULL,
  cell_j         integer NOT NULL,
  vehicles_sum   bigint NOT NULL,
  available_sum  bigint NOT NULL
);
CREATE UNIQUE INDEX vehicle_hex_hourly_cells_key ON efa.vehicle_hex_hourly_cells (source, job_name, hour, kind, cell_i, cell_j) NULLS NOT DISTINCT;
CREATE INDEX vehicle_hex_hourly_cells_hour_idx ON efa.vehicle_hex_hourly_cells (hour);
COMMENT ON TABLE efa.vehicle_hex_hourly_cells IS 'Vehicles per 250 m hexagon (ST_HexagonGrid cell i, j in EPSG:3857), kind and UTC hour, summed over the hour''s complete snapshots: the roll-up behind efa.vehicle_hex_hourly.';

-- The hexagon of each cell, built once: building it per row of the view cost most of a heat map's time.
CREATE TABLE efa.hex_cells (
  cell_i integer NOT NULL,
  cell_j integer NOT NULL,
  geom   geometry(Polygon, 4326) NOT NULL,
  PRIMARY KEY (cell_i, cell_j)
);
COMMENT ON TABLE efa.hex_cells IS 'The 250 m hexagons (ST_Hexagon in EPSG:3857, stored in EPSG:4326) of the cells efa.vehicle_hex_hourly_cells counts in.';

CREATE TABLE efa.parking_hourly (
  source            text NOT NULL,
  job_name          text NOT NULL,
  hour              timestamptz NOT NULL,
  parking_key       text NOT NULL,
  name              text,
  name_at           timestamptz NOT NULL,
  capacity          integer,
  readings          integer NOT NULL,
  free_sum          bigint NOT NULL,
  free_min          integer,
  free_max          integer,
  profile_readings  integer NOT NULL,
  profile_free_sum  bigint NOT NULL,
  unknown_readings  integer NOT NULL,
  occupancy_sum     numeric NOT NULL,
  occupancy_readings integer NOT NULL,
  readings_impossible integer NOT NULL,
  PRIMARY KEY (source, job_name, hour, parking_key)
);
CREATE INDEX parking_hourly_hour_idx ON efa.parking_hourly (hour);
CREATE INDEX parking_hourly_key_idx ON efa.parking_hourly (parking_key, hour);
COMMENT ON TABLE efa.parking_hourly IS 'Per source, job, UTC hour and parking object, over the hour''s complete snapshots: free places inside [0, capacity] counted, summed, least and most (REALTIME), the sum of each reading''s occupied share, PROFILE and UNKNOWN figures apart, figures outside [0, capacity] counted only. The roll-up behind efa.parking_occupancy_hourly and efa.parking_occupancy_weekday_hour.';

-- The newest position of every vehicle ever seen (within the retention): what efa.latest_vehicles
-- answered by sorting the whole series.
CREATE TABLE efa.vehicle_latest (
  fid            bigint NOT NULL,
  source         text NOT NULL,
  vehicle_key    text NOT NULL,
  provider_id    text,
  area_id        text,
  kind           text,
  engine         text,
  location_type  text,
  charge_percent real,
  fuel_percent   real,
  available      boolean,
  taken_at       timestamptz NOT NULL,
  run_id         bigint NOT NULL,
  geom           geometry(Point, 4326) NOT NULL
);
CREATE UNIQUE INDEX vehicle_latest_key ON efa.vehicle_latest (source, provider_id, vehicle_key) NULLS NOT DISTINCT;
CREATE INDEX vehicle_latest_taken_idx ON efa.vehicle_latest (taken_at);
COMMENT ON TABLE efa.vehicle_latest IS 'The newest stored position and state of each vehicle (by source, provider and vehicle key), kept current by every snapshot and pruned with the raw partitions: the table behind efa.latest_vehicles.';

-- Every column documented (docs/schema.md is generated from these).
COMMENT ON COLUMN efa.hex_cells.cell_i IS 'Column index of the hexagon (ST_HexagonGrid / ST_Hexagon, 250 m edge, EPSG:3857, origin 0,0).';
COMMENT ON COLUMN efa.hex_cells.cell_j IS 'Row index of the hexagon.';
COMMENT ON COLUMN efa.hex_cells.geom IS 'The hexagon, in EPSG:4326.';
COMMENT ON COLUMN efa.snapshot_hour_counts.source IS 'The deployment.';
COMMENT ON COLUMN efa.snapshot_hour_counts.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.snapshot_hour_counts.kind IS 'vehicles or parking.';
COMMENT ON COLUMN efa.snapshot_hour_counts.hour IS 'The UTC hour the snapshots were taken in (date_trunc in UTC).';
COMMENT ON COLUMN efa.snapshot_hour_counts.snapshots IS 'Complete snapshots of the hour (the ones the views average over).';
COMMENT ON COLUMN efa.snapshot_hour_counts.snapshots_incomplete IS 'Partial or failed snapshots of the hour (left out of every mean: they have gaps).';
COMMENT ON COLUMN efa.vehicle_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.vehicle_hourly.hour IS 'The UTC hour.';
COMMENT ON COLUMN efa.vehicle_hourly.provider_id IS 'The sharing provider (NULL where the answers named none).';
COMMENT ON COLUMN efa.vehicle_hourly.kind IS 'The vehicle kind (NULL where the answers named none).';
COMMENT ON COLUMN efa.vehicle_hourly.snapshots IS 'Complete snapshots of the hour that saw at least one such vehicle.';
COMMENT ON COLUMN efa.vehicle_hourly.vehicles_sum IS 'Vehicles summed over those snapshots.';
COMMENT ON COLUMN efa.vehicle_hourly.available_sum IS 'Available vehicles (available not false) summed over those snapshots.';
COMMENT ON COLUMN efa.vehicle_hourly.available_min IS 'Fewest available in one of those snapshots.';
COMMENT ON COLUMN efa.vehicle_hourly.available_max IS 'Most available in one snapshot.';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.hour IS 'The UTC hour.';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.kind IS 'The vehicle kind (NULL where the answers named none).';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.cell_i IS 'Column index of the hexagon (efa.hex_cells).';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.cell_j IS 'Row index of the hexagon (efa.hex_cells).';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.vehicles_sum IS 'Vehicles in the cell summed over the hour''s complete snapshots.';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.available_sum IS 'Available vehicles in the cell summed over the hour''s complete snapshots.';
COMMENT ON COLUMN efa.parking_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.parking_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.parking_hourly.hour IS 'The UTC hour.';
COMMENT ON COLUMN efa.parking_hourly.parking_key IS 'The parking object (as in efa.parking_snapshots).';
COMMENT ON COLUMN efa.parking_hourly.name IS 'Its name in the newest snapshot of the hour.';
COMMENT ON COLUMN efa.parking_hourly.name_at IS 'When that name was taken.';
COMMENT ON COLUMN efa.parking_hourly.capacity IS 'The largest capacity of the hour that is a count (0 or more).';
COMMENT ON COLUMN efa.parking_hourly.readings IS 'Measured (REALTIME) free-places figures inside [0, capacity].';
COMMENT ON COLUMN efa.parking_hourly.free_sum IS 'Their sum.';
COMMENT ON COLUMN efa.parking_hourly.free_min IS 'The fewest free places in one of them.';
COMMENT ON COLUMN efa.parking_hourly.free_max IS 'The most free places in one of them.';
COMMENT ON COLUMN efa.parking_hourly.profile_readings IS 'PROFILE figures (forecasts from a day curve) inside [0, capacity].';
COMMENT ON COLUMN efa.parking_hourly.profile_free_sum IS 'Their sum.';
COMMENT ON COLUMN efa.parking_hourly.unknown_readings IS 'Figures whose source the answer did not name (UNKNOWN), inside [0, capacity].';
COMMENT ON COLUMN efa.parking_hourly.occupancy_sum IS 'Sum of 1 - free / capacity over the measured readings with a capacity above 0.';
COMMENT ON COLUMN efa.parking_hourly.occupancy_readings IS 'How many readings occupancy_sum adds up.';
COMMENT ON COLUMN efa.parking_hourly.readings_impossible IS 'Free-places figures outside [0, capacity], counted and never averaged.';
COMMENT ON COLUMN efa.vehicle_latest.fid IS 'The fid of the snapshot row this position came from (efa.vehicle_snapshots).';
COMMENT ON COLUMN efa.vehicle_latest.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_latest.vehicle_key IS 'The vehicle''s id as sent (unique with provider_id).';
COMMENT ON COLUMN efa.vehicle_latest.provider_id IS 'The provider (NULL where the answer named none).';
COMMENT ON COLUMN efa.vehicle_latest.area_id IS 'Its operating area.';
COMMENT ON COLUMN efa.vehicle_latest.kind IS 'The vehicle kind.';
COMMENT ON COLUMN efa.vehicle_latest.engine IS 'Its engine type.';
COMMENT ON COLUMN efa.vehicle_latest.location_type IS 'Free-floating or at a station.';
COMMENT ON COLUMN efa.vehicle_latest.charge_percent IS 'Charge, percent.';
COMMENT ON COLUMN efa.vehicle_latest.fuel_percent IS 'Fuel, percent.';
COMMENT ON COLUMN efa.vehicle_latest.available IS 'Whether it could be rented (NULL: not said).';
COMMENT ON COLUMN efa.vehicle_latest.taken_at IS 'The snapshot that saw it last.';
COMMENT ON COLUMN efa.vehicle_latest.run_id IS 'The run of that snapshot.';
COMMENT ON COLUMN efa.vehicle_latest.geom IS 'Where it stood then.';

-- Adds one stored snapshot to the roll-ups, once (rolled_up), in the caller's transaction.
CREATE FUNCTION efa.rollup_snapshot(p_run bigint, p_kind text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s efa.snapshots%ROWTYPE;
  hr timestamptz;
BEGIN
  SELECT * INTO s FROM efa.snapshots WHERE run_id = p_run AND kind = p_kind AND NOT rolled_up FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  hr := date_trunc('hour', s.taken_at, 'UTC');
  INSERT INTO efa.snapshot_hour_counts AS c (source, job_name, kind, hour, snapshots, snapshots_incomplete)
  VALUES (s.source, s.job_name, s.kind, hr, (s.status = 'complete')::int, (s.status <> 'complete')::int)
  ON CONFLICT (source, job_name, kind, hour) DO UPDATE
    SET snapshots = c.snapshots + excluded.snapshots, snapshots_incomplete = c.snapshots_incomplete + excluded.snapshots_incomplete;

  IF s.kind = 'vehicles' THEN
    -- Every stored snapshot moves the latest positions (as the former view did, whatever its status).
    INSERT INTO efa.vehicle_latest AS l (fid, source, vehicle_key, provider_id, area_id, kind, engine, location_type,
                                         charge_percent, fuel_percent, available, taken_at, run_id, geom)
    SELECT DISTINCT ON (v.provider_id, v.vehicle_key)
           v.fid, v.source, v.vehicle_key, v.provider_id, v.area_id, v.kind, v.engine, v.location_type,
           v.charge_percent, v.fuel_percent, v.available, v.taken_at, v.run_id, v.geom
    FROM efa.vehicle_snapshots v
    WHERE v.taken_at = s.taken_at AND v.run_id = p_run
    ORDER BY v.provider_id, v.vehicle_key, v.fid DESC
    ON CONFLICT (source, provider_id, vehicle_key) DO UPDATE
      SET fid = excluded.fid, area_id = excluded.area_id, kind = excluded.kind, engine = excluded.engine,
          location_type = excluded.location_type, charge_percent = excluded.charge_percent,
          fuel_percent = excluded.fuel_percent, available = excluded.available, taken_at = excluded.taken_at,
          run_id = excluded.run_id, geom = excluded.geom
      WHERE l.taken_at <= excluded.taken_at;
  END IF;

  IF s.status = 'complete' AND s.kind = 'vehicles' THEN
    INSERT INTO efa.vehicle_hourly AS h (source, job_name, hour, provider_id, kind, snapshots, vehicles_sum, available_sum, available_min, available_max)
    SELECT s.source, s.job_name, hr, v.provider_id, v.kind, 1, count(*),
           count(*) FILTER (WHERE v.available IS NOT FALSE), count(*) FILTER (WHERE v.available IS NOT FALSE),
           count(*) FILTER (WHERE v.available IS NOT FALSE)
    FROM efa.vehicle_snapshots v
    WHERE v.taken_at = s.taken_at AND v.run_id = p_run
    GROUP BY v.provider_id, v.kind
    ON CONFLICT (source, job_name, hour, provider_id, kind) DO UPDATE
      SET snapshots = h.snapshots + 1, vehicles_sum = h.vehicles_sum + excluded.vehicles_sum,
          available_sum = h.available_sum + excluded.available_sum,
          available_min = least(h.available_min, excluded.available_min),
          available_max = greatest(h.available_max, excluded.available_max);

    -- A vehicle on a hexagon's edge counts in one cell (the lowest i, j), as before.
    INSERT INTO efa.vehicle_hex_hourly_cells AS h (source, job_name, hour, kind, cell_i, cell_j, vehicles_sum, available_sum)
    SELECT s.source, s.job_name, hr, v.kind, c.i, c.j, count(*), count(*) FILTER (WHERE v.available IS NOT FALSE)
    FROM efa.vehicle_snapshots v
    CROSS JOIN LATERAL (
      SELECT g.i, g.j FROM ST_HexagonGrid(250, ST_Transform(v.geom, 3857)) g
      WHERE ST_Intersects(g.geom, ST_Transform(v.geom, 3857)) ORDER BY g.i, g.j LIMIT 1
    ) c
    WHERE v.taken_at = s.taken_at AND v.run_id = p_run
    GROUP BY v.kind, c.i, c.j
    ON CONFLICT (source, job_name, hour, kind, cell_i, cell_j) DO UPDATE
      SET vehicles_sum = h.vehicles_sum + excluded.vehicles_sum, available_sum = h.available_sum + excluded.available_sum;
    INSERT INTO efa.hex_cells (cell_i, cell_j, geom)
    SELECT DISTINCT h.cell_i, h.cell_j, ST_Transform(ST_SetSRID(ST_Hexagon(250, h.cell_i, h.cell_j), 3857), 4326)
    FROM efa.vehicle_hex_hourly_cells h
    WHERE h.source = s.source AND h.job_name = s.job_name AND h.hour = hr
      AND NOT EXISTS (SELECT 1 FROM efa.hex_cells x WHERE x.cell_i = h.cell_i AND x.cell_j = h.cell_j)
    ON CONFLICT DO NOTHING;
  END IF;

  IF s.status = 'complete' AND s.kind = 'parking' THEN
    -- A figure outside [0, capacity] is no reading (sql/019): counted apart, never averaged.
    INSERT INTO efa.parking_hourly AS h (source, job_name, hour, parking_key, name, name_at, capacity, readings, free_sum,
                                         free_min, free_max, profile_readings, profile_free_sum, unknown_readings,
                                         occupancy_sum, occupancy_readings, readings_impossible)
    SELECT s.source, s.job_name, hr, p.parking_key, (array_agg(p.name))[1], s.taken_at, max(p.capacity_ok),
           count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'),
           coalesce(sum(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 0),
           min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'),
           count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'),
           coalesce(sum(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 0),
           count(p.free_ok) FILTER (WHERE p.data_source = 'UNKNOWN'),
           coalesce(sum(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 0),
           count(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'),
           count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)
    FROM (
      SELECT x.*,
             CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
             CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
      FROM efa.parking_snapshots x
      WHERE x.taken_at = s.taken_at AND x.run_id = p_run
    ) p
    GROUP BY p.parking_key
    ON CONFLICT (source, job_name, hour, parking_key) DO UPDATE
      SET name = CASE WHEN excluded.name_at >= h.name_at THEN excluded.name ELSE h.name END,
          name_at = greatest(h.name_at, excluded.name_at),
          capacity = greatest(h.capacity, excluded.capacity),
          readings = h.readings + excluded.readings,
          free_sum = h.free_sum + excluded.free_sum,
          free_min = least(h.free_min, excluded.free_min),
          free_max = greatest(h.free_max, excluded.free_max),
          profile_readings = h.profile_readings + excluded.profile_readings,
          profile_free_sum = h.profile_free_sum + excluded.profile_free_sum,
          unknown_readings = h.unknown_readings + excluded.unknown_readings,
          occupancy_sum = h.occupancy_sum + excluded.occupancy_sum,
          occupancy_readings = h.occupancy_readings + excluded.occupancy_readings,
          readings_impossible = h.readings_impossible + excluded.readings_impossible;
  END IF;

  UPDATE efa.snapshots SET rolled_up = true WHERE run_id = p_run AND kind = p_kind;
END $$;
COMMENT ON FUNCTION efa.rollup_snapshot(bigint, text) IS 'Adds one stored snapshot to the hourly roll-ups and efa.vehicle_latest, once: the snapshot writer calls it in the transaction that stores the snapshot.';

-- The snapshots already stored, oldest first (so the latest positions end with the newest).
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT run_id, kind FROM efa.snapshots WHERE NOT rolled_up ORDER BY taken_at, run_id LOOP
    PERFORM efa.rollup_snapshot(r.run_id, r.kind);
  END LOOP;
END $$;

CREATE OR REPLACE VIEW efa.snapshot_hours AS
  SELECT source, job_name, kind, hour, snapshots, snapshots_incomplete
  FROM efa.snapshot_hour_counts;

CREATE OR REPLACE VIEW efa.vehicle_availability_hourly AS
  SELECT r.source, r.job_name, r.hour, r.provider_id, r.kind, h.snapshots, h.snapshots_incomplete,
         round(r.vehicles_sum::numeric / h.snapshots, 2) AS vehicles_avg,
         round(r.available_sum::numeric / h.snapshots, 2) AS available_avg,
         -- A snapshot of the hour without any of them counts as zero.
         CASE WHEN r.snapshots < h.snapshots THEN 0 ELSE r.available_min END AS available_min,
         r.available_max
  FROM efa.vehicle_hourly r
  JOIN efa.snapshot_hour_counts h ON h.source = r.source AND h.job_name = r.job_name AND h.kind = 'vehicles' AND h.hour = r.hour;

CREATE OR REPLACE VIEW efa.vehicle_hex_hourly AS
  SELECT c.source, c.job_name, c.hour, c.kind, c.cell_i, c.cell_j,
         h.snapshots, h.snapshots_incomplete,
         round(c.vehicles_sum::numeric / h.snapshots, 2) AS vehicles_avg,
         round(c.available_sum::numeric / h.snapshots, 2) AS available_avg,
         g.geom
  FROM efa.vehicle_hex_hourly_cells c
  JOIN efa.hex_cells g ON g.cell_i = c.cell_i AND g.cell_j = c.cell_j
  JOIN efa.snapshot_hour_counts h ON h.source = c.source AND h.job_name = c.job_name AND h.kind = 'vehicles' AND h.hour = c.hour;

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
