-- after:
-- The partitioned tables, in one place for both functions.
CREATE OR REPLACE FUNCTION efa.snapshot_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['snapshot_tiles', 'vehicle_snapshots', 'parking_snapshots']
$$;
COMMENT ON FUNCTION efa.snapshot_tables() IS 'The partitioned snapshot tables.';
