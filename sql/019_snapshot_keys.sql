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
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).
ALTER TABLE efa.vehicle_snapshots DROP CONSTRAINT vehicle_snapshots_pkey;
ALTER TABLE efa.vehicle_snapshots ADD CONSTRAINT vehicle_snapshots_pkey PRIMARY KEY (taken_at, fid);
ALTER TABLE efa.vehicle_snapshots ADD CONSTRAINT vehicle_snapshots_vehicle_key
  UNIQUE NULLS NOT DISTINCT (taken_at, run_id, provider_id, vehicle_key);
DROP INDEX efa.vehicle_snapshots_key_idx;
CREATE INDEX vehicle_snapshots_key_idx ON efa.vehicle_snapshots (source, provider_id, vehicle_key, taken_at DESC);

-- Parking objects likewise one per snapshot: the run in the key instead of the source.
ALTER TABLE efa.parking_snapshots DROP CONSTRAINT parking_snapshots_pkey;
ALTER TABLE efa.parking_snapshots ADD CONSTRAINT parking_snapshots_pkey PRIMARY KEY (taken_at, run_id, parking_key);

