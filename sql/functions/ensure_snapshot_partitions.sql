-- after: efa.snapshot_tables
CREATE OR REPLACE FUNCTION efa.ensure_snapshot_partitions(day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
BEGIN
  -- The reader-proof lock of sql/020 (a reader can take no advisory key that blocks this).
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOREACH t IN ARRAY efa.snapshot_tables() LOOP
    part := t || '_' || to_char(day, 'YYYYMMDD');
    IF to_regclass('efa_partitions.' || part) IS NULL AND to_regclass('efa.' || part) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE efa_partitions.%I PARTITION OF efa.%I FOR VALUES FROM (%L) TO (%L)',
                       part, t, (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
      EXCEPTION WHEN duplicate_table THEN
        NULL;
      END;
    END IF;
  END LOOP;
END $$;
COMMENT ON FUNCTION efa.ensure_snapshot_partitions(date) IS 'Creates the day''s partitions of the snapshot tables if missing (serialised by an advisory lock; safe for concurrent jobs).';
