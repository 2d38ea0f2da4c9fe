-- efa-sync schema, version 3: the schema documents itself (COMMENT ON every relation and column,
-- shown by psql \d+, QGIS and docs/schema.md, which is generated from these comments), and views
-- for analysts and dashboards. Runs on PostgreSQL 15 + PostGIS 3.3 and on PGlite (PostgreSQL 18).
-- "Active today" below means: not ended, valid_from <= current_date <= valid_to (a missing bound is
-- open); current_date follows the session's TimeZone.
--
-- The comments on the relations' own tables (efa.pins … efa.parking_snapshots) are generated from
-- their declarations in src/relations/ and applied with the definitions (issue 31).

-- ---------------------------------------------------------------------------------------------
-- Schema and bookkeeping
COMMENT ON SCHEMA efa IS 'efa-sync: a Mentz EFA public-transport API (CoordInfo, StopFinder, ServingLines, AddInfo, OpArea) harvested into PostGIS. Geometry in EPSG:4326, lon/lat order. Documented in docs/schema.md, generated from these comments.';

COMMENT ON TABLE efa.schema_migrations IS 'Which sql/NNN_name.sql migrations were applied, with the checksum of each file (efa-sync migrate refuses a file changed after it was applied).';
COMMENT ON COLUMN efa.schema_migrations.version IS 'Migration number: the NNN of sql/NNN_name.sql.';
COMMENT ON COLUMN efa.schema_migrations.name IS 'Migration name: the name part of sql/NNN_name.sql.';
COMMENT ON COLUMN efa.schema_migrations.checksum IS 'SHA-256 (hex) of the migration file as applied.';
COMMENT ON COLUMN efa.schema_migrations.applied_at IS 'When the migration was applied.';

-- runs
COMMENT ON TABLE efa.runs IS 'One row per run of a job (efa-sync run <job>): its status, timing, request count and per-relation row counts. Written by efa-sync, not from an EFA answer.';
COMMENT ON COLUMN efa.runs.run_id IS 'Run id, increasing; referenced by first_run / changed_run of the entity tables and by efa.changes.';
COMMENT ON COLUMN efa.runs.job_name IS 'The job''s "name" field (job file).';
COMMENT ON COLUMN efa.runs.job_hash IS 'Hash of the job file as loaded, to tell runs of an edited job apart.';
COMMENT ON COLUMN efa.runs.status IS 'running, succeeded, partial (some units failed after retries; their data was kept and nothing in them was marked deleted) or failed.';
COMMENT ON COLUMN efa.runs.started_at IS 'When the run started.';
COMMENT ON COLUMN efa.runs.finished_at IS 'When the run ended; NULL while running (or when the process died).';
COMMENT ON COLUMN efa.runs.heartbeat_at IS 'Last sign of life of the run''s process; a running run with an old heartbeat is dead.';
COMMENT ON COLUMN efa.runs.requests IS 'HTTP requests sent to the EFA API by this run, retries included.';
COMMENT ON COLUMN efa.runs.stats IS 'Per relation {inserted, updated, deleted, unchanged} row counts; keys starting with _ are per-operation unit counts (_units), _rejects, and the first failed (_failures) and capped (_capped) units.';
COMMENT ON COLUMN efa.runs.error IS 'Why the run failed or was partial; NULL when it succeeded. Credentials are redacted.';
COMMENT ON COLUMN efa.runs.options IS 'The job as run (file, baseUrl, region, rate limit, sweeps, CLI overrides applied), with credentials in URLs redacted.';
COMMENT ON COLUMN efa.runs.messages IS 'Distinct server messages (message / systemMessages of the EFA answers) seen during the run.';
COMMENT ON COLUMN efa.runs.resumed_from IS 'The earlier run this run resumed, if any.';
COMMENT ON COLUMN efa.runs.pid IS 'Process id of the efa-sync process running the run, so a second run of the same job can name the lock holder (sql/002).';
COMMENT ON COLUMN efa.runs.host IS 'Host name of the machine running the run (sql/002).';

COMMENT ON TABLE efa.run_tiles IS 'Per run, one row per unit of work: a CoordInfo bounding-box tile (split where it hit the max cap), an OpArea circle, a stop''s ServingLines request, an AddInfo query. The progress record of the run and the basis of resume and coverage.';
COMMENT ON COLUMN efa.run_tiles.run_tile_id IS 'Surrogate key.';
COMMENT ON COLUMN efa.run_tiles.run_id IS 'The run (efa.runs).';
COMMENT ON COLUMN efa.run_tiles.operation IS 'EFA operation of the unit: coordInfo, stopFinder, servingLines, addInfo or opArea.';
COMMENT ON COLUMN efa.run_tiles.tile_id IS 'Unit id, unique per run and operation: CoordInfo and OpArea circles: derived from the tile''s box and depth; servingLines: stop:<stop id> or line:<name>; addInfo and OpArea ALL: all.';
COMMENT ON COLUMN efa.run_tiles.parent_id IS 'CoordInfo: the tile this one was split from; NULL for a root tile and other operations.';
COMMENT ON COLUMN efa.run_tiles.depth IS 'CoordInfo: number of splits from the root tile (0 = root).';
COMMENT ON COLUMN efa.run_tiles.bbox IS 'The unit''s area (Polygon, EPSG:4326): the tile''s boundingBoxLU/boundingBoxRL box sent to CoordInfo, or the OpArea circle''s box; NULL when the unit has no area.';
COMMENT ON COLUMN efa.run_tiles.status IS 'pending (planned, not fetched yet: what a resumed run fetches), done, split (answer hit max: children requested, its hits not stored), capped (hit max but too small to split: objects beyond the cap may be missing) or failed (after retries).';
COMMENT ON COLUMN efa.run_tiles.attempts IS 'HTTP attempts for this unit (1 = no retry; 0 = never answered).';
COMMENT ON COLUMN efa.run_tiles.hits IS 'Records in the unit''s answer (CoordInfo: length of pins[]).';
COMMENT ON COLUMN efa.run_tiles.split IS 'True when the tile was split (status = split).';
COMMENT ON COLUMN efa.run_tiles.duration_ms IS 'Milliseconds from the first request to the stored result, retries and waiting for the rate limit included.';
COMMENT ON COLUMN efa.run_tiles.fetched_at IS 'When the unit''s result was recorded.';
COMMENT ON COLUMN efa.run_tiles.error IS 'Last error of a failed unit; NULL otherwise.';

-- pins, stops, pois

-- lines, stop_lines

-- notices

-- sharing

-- rejects (run_seen and changes are views since sql/007: sql/views/)
COMMENT ON TABLE efa.rejects IS 'Records of EFA answers that could not be normalised (missing fields, bad coordinates, unrepairable polygons), with the reason and the record as received: never silently dropped.';
COMMENT ON COLUMN efa.rejects.reject_id IS 'Surrogate key, increasing.';
COMMENT ON COLUMN efa.rejects.run_id IS 'The run that received the record (efa.runs).';
COMMENT ON COLUMN efa.rejects.operation IS 'EFA operation whose answer held the record: coordInfo, stopFinder, servingLines, addInfo or opArea.';
COMMENT ON COLUMN efa.rejects.reason IS 'Why the record was rejected.';
COMMENT ON COLUMN efa.rejects.raw IS 'The record as received (JSON).';
COMMENT ON COLUMN efa.rejects.at IS 'When the reject was written.';

