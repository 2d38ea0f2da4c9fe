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

-- The snapshots already stored are rolled up by migrate() once efa.rollup_snapshot exists
-- (sql/functions/rollup_snapshot.sql, applied after the numbered migrations): src/db/migrate.ts.
