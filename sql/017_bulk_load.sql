-- efa-sync schema, version 17: what a first night pays per row, where a set-based rule does the same.
--
-- first_run / changed_run of the relations are no longer foreign keys. A foreign key is checked
--    per inserted row (two look-ups into efa.runs, each a locking SELECT run through SPI): measured on
--    PostgreSQL 15, 200,582 pins inserted in 2.19 s without them and 3.32 s with them (+52 %), a
--    third of a first night's load. Only efa-sync writes these columns, always with the run it holds
--    (its row is committed before the first batch). What the keys also promised, that the run a row
--    names is never gone, efa.runs now promises itself: it is append-only (the trigger below refuses
--    DELETE and TRUNCATE; nothing in efa-sync ever deleted a run). The ledger's own references to
--    efa.runs (run_tiles, run_seen_sets, change_sets, rejects, snapshots) are one row per tile or
--    batch and stay foreign keys.
ALTER TABLE efa.pins DROP CONSTRAINT pins_first_run_fkey, DROP CONSTRAINT pins_changed_run_fkey;
ALTER TABLE efa.lines DROP CONSTRAINT lines_first_run_fkey, DROP CONSTRAINT lines_changed_run_fkey;
ALTER TABLE efa.stop_lines DROP CONSTRAINT stop_lines_first_run_fkey, DROP CONSTRAINT stop_lines_changed_run_fkey;
ALTER TABLE efa.notices DROP CONSTRAINT notices_first_run_fkey, DROP CONSTRAINT notices_changed_run_fkey;
ALTER TABLE efa.sharing_providers DROP CONSTRAINT sharing_providers_first_run_fkey, DROP CONSTRAINT sharing_providers_changed_run_fkey;
ALTER TABLE efa.operating_areas DROP CONSTRAINT operating_areas_first_run_fkey, DROP CONSTRAINT operating_areas_changed_run_fkey;

