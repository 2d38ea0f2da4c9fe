-- efa-sync schema, version 20: locks a reader cannot take.
-- Migrations and the snapshot tables' partitions were serialised by advisory locks on fixed keys
-- (4711001, hashtext('efa-sync:snapshot-partitions')). Advisory locks have no privileges: a reader
-- role (grant-reader --login) could take a key and hold it, and every run then waited until its
-- statement timeout. Each lock is now an EXCLUSIVE table lock on an empty table in efa_private,
-- where a reader has no privilege at all (not even USAGE on the schema), so it can neither take the
-- lock nor hold a lock that conflicts with it. Only the fixed migration key of a database that has
-- no efa.schema_migrations yet is left (src/db/migrate.ts bounds that wait and names the holder).
CREATE TABLE efa_private.migration_lock ();
REVOKE ALL ON efa_private.migration_lock FROM PUBLIC;
COMMENT ON TABLE efa_private.migration_lock IS 'Empty: migrate() takes it IN EXCLUSIVE MODE so two processes never apply migrations at once (readers cannot lock it)';

CREATE TABLE efa_private.snapshot_partitions_lock ();
REVOKE ALL ON efa_private.snapshot_partitions_lock FROM PUBLIC;
COMMENT ON TABLE efa_private.snapshot_partitions_lock IS 'Empty: efa.ensure_snapshot_partitions and efa.drop_snapshot_partitions take it IN EXCLUSIVE MODE to serialise concurrent snapshot jobs (readers cannot lock it)';

CREATE OR REPLACE FUNCTION efa.ensure_snapshot_partitions(day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
BEGIN
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOREACH t IN ARRAY efa.snapshot_tables() LOOP
    part := t || '_' || to_char(day, 'YYYYMMDD');
    IF to_regclass('efa.' || part) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE efa.%I PARTITION OF efa.%I FOR VALUES FROM (%L) TO (%L)',
                       part, t, (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
      EXCEPTION WHEN duplicate_table THEN
        NULL;
      END;
    END IF;
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION efa.drop_snapshot_partitions(keep_from date) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOR r IN
    SELECT c.relname::text AS part
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    WHERE n.nspname = 'efa' AND p.relname = ANY (efa.snapshot_tables())
      AND c.relname ~ '_[0-9]{8}$'
      AND to_date(right(c.relname, 8), 'YYYYMMDD') < keep_from
    ORDER BY 1
  LOOP
    EXECUTE format('DROP TABLE efa.%I', r.part);
    RETURN NEXT r.part;
  END LOOP;
  DELETE FROM efa.snapshots WHERE taken_at < (keep_from::timestamp AT TIME ZONE 'UTC');
END $$;
