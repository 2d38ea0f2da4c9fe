-- efa-sync schema, version 6: the comments of what versions 4 and 5 added (shown by psql \d+,
-- QGIS, and docs/schema.md, which is generated from them).
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).

COMMENT ON COLUMN efa.runs.source IS 'The deployment the run''s job harvests (the job''s source, default its name). Every row the run wrote belongs to it.';
COMMENT ON COLUMN efa.runs.scope IS 'What the run looked at, recorded before it swept: its source, region, and per relation the pin types, MOT filters and the filters of each operation. The deletion predicates (efa.gone_<relation>) read only this.';
COMMENT ON COLUMN efa.runs.lease IS 'Fencing token of the process that holds the run: every commit checks it, so a process that lost its lock commits nothing more once another took the run over.';
COMMENT ON COLUMN efa.runs.meta IS 'Run metadata beside the row counts: dialect read, requests per operation, retries, units per status, rejects, failed/capped/incomplete units, deletions held by the mass-deletion guard, duration in seconds.';
COMMENT ON COLUMN efa.run_tiles.subject IS 'The object the unit is about, where it is one: the stop id of a ServingLines request.';

COMMENT ON COLUMN efa.run_seen.source IS 'The run''s source.';
COMMENT ON COLUMN efa.changes.source IS 'The source of the changed row (always the run''s).';
COMMENT ON COLUMN efa.rejects.source IS 'The source of the run that received the record.';
COMMENT ON COLUMN efa.rejects.unit IS 'The unit of work whose answer held the record (a CoordInfo tile id, stop:<id>, all).';

