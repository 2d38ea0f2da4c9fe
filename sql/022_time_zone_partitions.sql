-- efa-sync schema, version 22: zone-less times read in the deployment's zone, and the day partitions
-- of the snapshot tables out of the analysts' schema.
--
-- Times EFA servers write without an offset (parking measuredAt `2026-11-24T09:58:00`, legacy
-- itdDate/itdTime) are the deployment's wall clock. Until now they were NULL (no instant). A run now
-- reads them in a time zone (the job's timeZone, else the zone of its region's centre) and records
-- it in efa.runs.time_zone, so SQL can read the text of an answer the same way.
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).

ALTER TABLE efa.runs ADD COLUMN time_zone text;
COMMENT ON COLUMN efa.runs.time_zone IS 'The IANA time zone the run read times written without an offset in (parking measuredAt, legacy itdDate/itdTime): the job''s timeZone, else the zone at the centre of its region. NULL for runs before schema version 22.';

-- The day partitions move to a schema of their own. GIS tools list every table of every schema they
-- may read: 270 partitions at the default retention buried the analyst's layers. Queries name the
-- parents (efa.vehicle_snapshots, ...), which PostgreSQL routes to the partitions wherever they live;
-- privileges on a parent cover its partitions, so a reader role needs nothing in efa_partitions.
CREATE SCHEMA IF NOT EXISTS efa_partitions;
COMMENT ON SCHEMA efa_partitions IS 'The day partitions of efa.snapshot_tiles, efa.vehicle_snapshots and efa.parking_snapshots (efa-sync). Query the parents in schema efa; nothing here is meant to be read directly.';

DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT c.relname::text AS part
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    JOIN pg_namespace cn ON cn.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND cn.nspname = 'efa' AND p.relname IN ('snapshot_tiles', 'vehicle_snapshots', 'parking_snapshots')
  LOOP
    EXECUTE format('ALTER TABLE efa.%I SET SCHEMA efa_partitions', r.part);
  END LOOP;
END $$;

