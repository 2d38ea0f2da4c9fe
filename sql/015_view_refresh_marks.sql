-- efa-sync schema, version 15: the materialized views are refreshed only when something they read
-- changed. At 1,000,000 pins the CONCURRENTLY refresh of efa.stop_summary (a full recompute and a
-- diff against the old contents) was the largest part of an unchanged night's finalisation; a night
-- that changed nothing on the same date produces the same rows, so it is skipped (src/db/views.ts).
--
-- The mark is the newest efa.change_sets id the refresh could see, and the date it ran on: every row
-- the views read changes through a change set (inserts, updates, deletions, revivals), and
-- efa.active_notices depends on current_date. ETL bookkeeping, not for analysts: kept in efa_private.
CREATE TABLE efa_private.view_refreshes (
  view_name      text PRIMARY KEY,
  change_set_id  bigint NOT NULL,
  refreshed_on   date NOT NULL,
  refreshed_at   timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON efa_private.view_refreshes FROM PUBLIC;
COMMENT ON TABLE efa_private.view_refreshes IS 'Per materialized view: the newest efa.change_sets id and the date of its last refresh; a run that changed nothing skips a refresh that would give the same rows';
COMMENT ON COLUMN efa_private.view_refreshes.view_name IS 'The materialized view, schema-qualified (efa.stop_summary)';
COMMENT ON COLUMN efa_private.view_refreshes.change_set_id IS 'max(efa.change_sets.set_id) read just before the refresh began';
COMMENT ON COLUMN efa_private.view_refreshes.refreshed_on IS 'current_date when it was refreshed (efa.active_notices depends on the date)';
COMMENT ON COLUMN efa_private.view_refreshes.refreshed_at IS 'When it was refreshed';
