-- efa-sync schema, version 6: the comments of what versions 4 and 5 added (shown by psql \d+,
-- QGIS, and docs/schema.md, which is generated from them).

COMMENT ON COLUMN efa.runs.source IS 'The deployment the run''s job harvests (the job''s source, default its name). Every row the run wrote belongs to it.';
COMMENT ON COLUMN efa.runs.scope IS 'What the run looked at, recorded before it swept: its source, region, and per relation the pin types, MOT filters and the filters of each operation. The deletion predicates (efa.gone_<relation>) read only this.';
COMMENT ON COLUMN efa.runs.lease IS 'Fencing token of the process that holds the run: every commit checks it, so a process that lost its lock commits nothing more once another took the run over.';
COMMENT ON COLUMN efa.runs.meta IS 'Run metadata beside the row counts: dialect read, requests per operation, retries, units per status, rejects, failed/capped/incomplete units, deletions held by the mass-deletion guard, duration in seconds.';
COMMENT ON COLUMN efa.run_tiles.subject IS 'The object the unit is about, where it is one: the stop id of a ServingLines request.';

COMMENT ON COLUMN efa.pins.source IS 'The deployment (source) the object belongs to; pin_key is unique within it.';
COMMENT ON COLUMN efa.pins.fid IS 'Integer key of the row (for QGIS, GDAL, pg_featureserv, martin).';
COMMENT ON COLUMN efa.pins.global_id IS 'A stop''s global id (IFOPT / DHID, e.g. de:08111:6008) where the answer carries one (STOP_GLOBAL_ID, gid) or the id has that form; NULL otherwise.';
COMMENT ON COLUMN efa.lines.source IS 'The deployment (source) the line belongs to; line_key is unique within it.';
COMMENT ON COLUMN efa.lines.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.stop_lines.source IS 'The deployment (source) of the stop and the line.';
COMMENT ON COLUMN efa.stop_lines.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.stop_lines.pair_key IS 'stop_id|line_key: the pair''s key within its source, as efa.changes and efa.run_seen name it.';
COMMENT ON COLUMN efa.stop_lines.content_hash IS 'Constant: a pair has no content besides its key.';
COMMENT ON COLUMN efa.stop_lines.changed_run IS 'The run that last inserted or revived the pair.';
COMMENT ON COLUMN efa.notices.source IS 'The deployment (source) the notice belongs to; notice_id is unique within it.';
COMMENT ON COLUMN efa.notices.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.sharing_providers.source IS 'The deployment (source) that named the provider.';
COMMENT ON COLUMN efa.sharing_providers.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.operating_areas.source IS 'The deployment (source) that named the area.';
COMMENT ON COLUMN efa.operating_areas.fid IS 'Integer key of the row (the single-column key for QGIS and GDAL).';
COMMENT ON COLUMN efa.operating_areas.in_region IS 'Whether the area touches the region of the job that stored it (some deployments answer OpArea nationwide; opArea.clipToRegion keeps only these). NULL without geometry.';
COMMENT ON COLUMN efa.run_seen.source IS 'The run''s source.';
COMMENT ON COLUMN efa.changes.source IS 'The source of the changed row (always the run''s).';
COMMENT ON COLUMN efa.rejects.source IS 'The source of the run that received the record.';
COMMENT ON COLUMN efa.rejects.unit IS 'The unit of work whose answer held the record (a CoordInfo tile id, stop:<id>, all).';

