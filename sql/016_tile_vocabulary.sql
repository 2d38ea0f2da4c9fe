-- efa-sync schema, version 16: one status vocabulary for the tiles of both kinds of run, and the run
-- record's leftovers (src/db/ledger.ts, TileStatus).
--
-- A snapshot tile answered whole was `ok`, a run tile answered whole `done`: both are `done` now.
-- No view reads the tiles' words (the snapshot views of sql/009 and sql/011 read efa.snapshots.status,
-- whose words are unchanged); a query of an analyst that asked for status = 'ok' asks for 'done'.
ALTER TABLE efa.snapshot_tiles DROP CONSTRAINT snapshot_tiles_status_check;
UPDATE efa.snapshot_tiles SET status = 'done' WHERE status = 'ok';
ALTER TABLE efa.snapshot_tiles ADD CONSTRAINT snapshot_tiles_status_check
  CHECK (status IN ('done', 'incomplete', 'capped', 'split', 'failed'));
COMMENT ON COLUMN efa.snapshot_tiles.status IS 'done: answered whole (ok before schema version 16); incomplete: answered with rejected records or records outside the box (objects may be missing); capped: hit max and too small to split (objects may be missing); split: hit max, its children were requested; failed: not looked at (request failed or answer not trusted). The words of efa.run_tiles.status.';

COMMENT ON COLUMN efa.run_tiles.split IS 'True when the tile was split (status = split); set by the database from status.';

-- An interrupted run is resumed in its own row (the same run_id, a new lease): no run resumes another.
COMMENT ON COLUMN efa.runs.resumed_from IS 'Always NULL: an interrupted run is resumed in its own row (same run_id, a new lease). Kept for readers of release 0.1.';
COMMENT ON COLUMN efa.runs.heartbeat_at IS 'Last sign of life of the run''s process: stamped at its start, with every commit of its work (the lease check) and at its end; a running run with an old heartbeat is dead.';
