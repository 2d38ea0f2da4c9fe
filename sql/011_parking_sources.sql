-- efa-sync schema, version 11: where a parking figure comes from, and sharing vehicles at stations.
-- The interface's published rapidJSON schema gives each parking object's figures a data source:
-- REALTIME (measured), PROFILE (read off a day curve: a forecast) or UNKNOWN, and the time they
-- were measured. Until now nothing told them apart and the occupancy views averaged forecasts as
-- if they were readings. Now the snapshots and efa.current_parking carry the source and time, and
-- the views count only REALTIME figures as measurements, with profile figures in columns of their own.
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).

ALTER TABLE efa.parking_snapshots
  ADD COLUMN data_source text CHECK (data_source IN ('REALTIME', 'PROFILE', 'UNKNOWN')),
  ADD COLUMN measured_at timestamptz,
  ADD COLUMN occ real,
  ADD COLUMN occ_los real,
  ADD COLUMN occ_level text,
  ADD COLUMN occ_trend real;

-- Rows stored before this version read only the json/legacy `realtime` and `freeSpaces` fields,
-- which servers send with parkObjInfoRealtime=1 alone: their figures are measurements.
UPDATE efa.parking_snapshots SET data_source = 'REALTIME' WHERE free IS NOT NULL AND data_source IS NULL;

ALTER TABLE efa.vehicle_snapshots
  ADD COLUMN station_id text,
  ADD COLUMN station_slots jsonb,
  ADD COLUMN model text,
  ADD COLUMN range_km real;

-- Providers and areas also come from the published schema's OpArea answer (operatingAreas[]): the
-- comments say where each column comes from in both shapes.
