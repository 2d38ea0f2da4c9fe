-- after: efa.snapshot_tables
CREATE OR REPLACE FUNCTION efa.drop_snapshot_partitions(keep_from date) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  -- The reader-proof lock of sql/020 (a reader can take no advisory key that blocks this).
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOR r IN
    SELECT c.relname::text AS part, cn.nspname::text AS schema_name
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    JOIN pg_namespace cn ON cn.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND p.relname = ANY (efa.snapshot_tables())
      AND c.relname ~ '_[0-9]{8}$'
      AND to_date(right(c.relname, 8), 'YYYYMMDD') < keep_from
    ORDER BY 1
  LOOP
    EXECUTE format('DROP TABLE %I.%I', r.schema_name, r.part);
    RETURN NEXT r.part;
  END LOOP;
  DELETE FROM efa.snapshots WHERE taken_at < (keep_from::timestamp AT TIME ZONE 'UTC');
END $$;
COMMENT ON FUNCTION efa.drop_snapshot_partitions(date) IS 'Drops the partitions of days before the given UTC day, whole, and their efa.snapshots records; returns the partitions dropped.';
