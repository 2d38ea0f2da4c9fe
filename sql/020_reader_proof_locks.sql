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

-- The partition functions take snapshot_partitions_lock; they are defined, with the schema their
-- partitions live in, in sql/022_time_zone_partitions.sql (one definition, not two).
