-- Incremental refresh, resume and deletion safety.
-- A tile is recorded as 'pending' when it is planned (the first tiles at the start of a run, the
-- children of a split in the split's own transaction), so a crashed run knows exactly which tiles
-- are left: resume re-queues the pending ones and fetches nothing that was committed.
ALTER TABLE efa.run_tiles DROP CONSTRAINT run_tiles_status_check;
ALTER TABLE efa.run_tiles ADD CONSTRAINT run_tiles_status_check
  CHECK (status IN ('pending', 'done', 'split', 'capped', 'failed'));
CREATE INDEX run_tiles_run_op_status_idx ON efa.run_tiles (run_id, operation, status);
-- "Were this stop's lines ever fetched": looked up per stop when choosing the night's stops.
CREATE INDEX run_tiles_op_tile_idx ON efa.run_tiles (operation, tile_id);

-- Deletion detection asks "did this job ever see this key"; the run_seen primary key leads with run_id.
CREATE INDEX run_seen_relation_key_idx ON efa.run_seen (relation, key);

-- Who is running a run, so a second run of the same job can name the holder.
ALTER TABLE efa.runs ADD COLUMN pid integer;
ALTER TABLE efa.runs ADD COLUMN host text;
