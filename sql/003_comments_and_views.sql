-- efa-sync schema, version 3: the schema documents itself (COMMENT ON every relation and column,
-- shown by psql \d+, QGIS and docs/schema.md, which is generated from these comments), and views
-- for analysts and dashboards. Runs on PostgreSQL 15 + PostGIS 3.3 and on PGlite (PostgreSQL 18).
-- "Active today" below means: not ended, valid_from <= current_date <= valid_to (a missing bound is
-- open); current_date follows the session's TimeZone.

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
COMMENT ON TABLE efa.pins IS 'Every object of CoordInfo answers (pins[]): stops, POIs, parking, sharing objects, one row per real object however many tiles returned it. Never hard-deleted: deleted_at is set when a complete sweep of its place no longer finds it.';
COMMENT ON COLUMN efa.pins.pin_key IS 'Stable key: the EFA id (pins[].id) where present, else ''h:'' + 20 hex digits of a SHA-1 of type, name and the coordinate rounded to 5 decimals (~1 m).';
COMMENT ON COLUMN efa.pins.type IS 'CoordInfo pins[].type: STOP, POI_POINT, POI_AREA, BUS_POINT, GIS_POINT, … (the object types of the API).';
COMMENT ON COLUMN efa.pins.id IS 'CoordInfo pins[].id, the EFA object id (stops: the stop id reusable as name_sf / name_sl); NULL when the answer has none (often for POIs).';
COMMENT ON COLUMN efa.pins.name IS 'CoordInfo pins[].name: display name.';
COMMENT ON COLUMN efa.pins.mot_types IS 'CoordInfo pins[].motTypes (comma-separated means-of-transport ids, stops) as a sorted, distinct integer array; empty when absent.';
COMMENT ON COLUMN efa.pins.geom IS 'CoordInfo pins[].coord {lat, lon} as a Point (lon, lat), EPSG:4326, rounded to 7 decimals (~1 cm).';
COMMENT ON COLUMN efa.pins.attrs IS 'Every other field of the pin as received (JSON), e.g. locality, parking or vehicle details.';
COMMENT ON COLUMN efa.pins.content_hash IS 'SHA-1 of the normalised row (type, id, name, mot_types, coordinate, attrs); changed_run moves only when it changes.';
COMMENT ON COLUMN efa.pins.first_run IS 'The run that first stored the object (efa.runs).';
COMMENT ON COLUMN efa.pins.changed_run IS 'The last run that changed the object''s content (or revived it).';
COMMENT ON COLUMN efa.pins.deleted_at IS 'When a run that swept the object''s place completely no longer found it; NULL while it exists. Cleared if it reappears.';

-- lines, stop_lines
COMMENT ON TABLE efa.lines IS 'Lines from ServingLines answers (servingLines[]), asked per swept stop (mode=odv) or per line name (mode=line); one row per line and direction.';
COMMENT ON COLUMN efa.lines.line_key IS 'Stable key: the EFA line id (network:line:supplement:direction:project) where the answer has one, else ''h:'' + 20 hex digits of a SHA-1 of mot, number, name and direction.';
COMMENT ON COLUMN efa.lines.line_id IS 'ServingLines servingLines[].id, the EFA line id; NULL when the answer has none. AddInfo notices name lines by its leading parts (efa.notice_lines).';
COMMENT ON COLUMN efa.lines.name IS 'ServingLines servingLines[].name: public line name.';
COMMENT ON COLUMN efa.lines.number IS 'ServingLines servingLines[].number: line number (as text).';
COMMENT ON COLUMN efa.lines.mot IS 'ServingLines servingLines[].mot: means-of-transport id.';
COMMENT ON COLUMN efa.lines.direction IS 'ServingLines servingLines[].direction: destination text; empty when absent.';
COMMENT ON COLUMN efa.lines.attrs IS 'Every other field of the serving line as received (JSON).';
COMMENT ON COLUMN efa.lines.content_hash IS 'SHA-1 of the normalised row; changed_run moves only when it changes.';
COMMENT ON COLUMN efa.lines.first_run IS 'The run that first stored the line.';
COMMENT ON COLUMN efa.lines.changed_run IS 'The last run that changed the line''s content.';
COMMENT ON COLUMN efa.lines.deleted_at IS 'When a complete sweep no longer found the line; NULL while it exists.';

COMMENT ON TABLE efa.stop_lines IS 'Which line serves which stop: one row per line in the ServingLines answer for a stop (mode=odv, name_sl = the stop id).';
COMMENT ON COLUMN efa.stop_lines.stop_id IS 'The stop asked for (name_sl): efa.stops.stop_id.';
COMMENT ON COLUMN efa.stop_lines.line_key IS 'A line of its answer: efa.lines.line_key.';
COMMENT ON COLUMN efa.stop_lines.first_run IS 'The run that first saw the line at the stop.';
COMMENT ON COLUMN efa.stop_lines.deleted_at IS 'When a run that asked for the stop no longer found the line in its answer; NULL while it serves the stop.';

-- notices
COMMENT ON TABLE efa.notices IS 'Disruption and information notices from AddInfo answers (infos[]), one row per notice id however many filters returned it. Never hard-deleted: ended_at is set when a complete AddInfo sweep no longer returns it.';
COMMENT ON COLUMN efa.notices.notice_id IS 'AddInfo infos[].id.';
COMMENT ON COLUMN efa.notices.type IS 'AddInfo infos[].type: stopInfo, stopBlocking, lineInfo, lineBlocking, routeInfo, routeBlocking, generalInfo or bannerInfo.';
COMMENT ON COLUMN efa.notices.title IS 'AddInfo infos[].title: headline; empty when absent.';
COMMENT ON COLUMN efa.notices.text IS 'AddInfo infos[].text: body text; empty when absent.';
COMMENT ON COLUMN efa.notices.valid_from IS 'AddInfo infos[].validFrom (YYYY-MM-DD): first day of validity; NULL = open.';
COMMENT ON COLUMN efa.notices.valid_to IS 'AddInfo infos[].validTo (YYYY-MM-DD): last day of validity, inclusive; NULL = open.';
COMMENT ON COLUMN efa.notices.severity IS 'AddInfo infos[].severity: severity label as the deployment names it; NULL when absent.';
COMMENT ON COLUMN efa.notices.lines IS 'AddInfo infos[].lines: identifiers of the affected lines (colon-separated parts, the leading parts of efa.lines.line_id), sorted and distinct; see efa.notice_lines.';
COMMENT ON COLUMN efa.notices.attrs IS 'Every other field of the notice as received (JSON), e.g. provider code, source system, affected stops.';
COMMENT ON COLUMN efa.notices.content_hash IS 'SHA-1 of the normalised row; changed_run moves only when it changes.';
COMMENT ON COLUMN efa.notices.first_run IS 'The run that first stored the notice.';
COMMENT ON COLUMN efa.notices.changed_run IS 'The last run that changed the notice''s content.';
COMMENT ON COLUMN efa.notices.ended_at IS 'When a complete AddInfo sweep no longer returned the notice; NULL while it is published.';

-- sharing
COMMENT ON TABLE efa.sharing_providers IS 'Bike, car and scooter sharing providers from OpArea answers (providers[]).';
COMMENT ON COLUMN efa.sharing_providers.provider_id IS 'OpArea providers[].id.';
COMMENT ON COLUMN efa.sharing_providers.name IS 'OpArea providers[].name.';
COMMENT ON COLUMN efa.sharing_providers.vehicle_type IS 'OpArea providers[].vehicleType, e.g. BIKE, CAR; NULL when empty.';
COMMENT ON COLUMN efa.sharing_providers.attrs IS 'Every other field of the provider as received (JSON), areas excepted (efa.operating_areas).';
COMMENT ON COLUMN efa.sharing_providers.content_hash IS 'SHA-1 of the normalised row; changed_run moves only when it changes.';
COMMENT ON COLUMN efa.sharing_providers.first_run IS 'The run that first stored the provider.';
COMMENT ON COLUMN efa.sharing_providers.changed_run IS 'The last run that changed the provider''s content.';
COMMENT ON COLUMN efa.sharing_providers.deleted_at IS 'When a complete OpArea sweep no longer returned the provider; NULL while it exists.';

COMMENT ON TABLE efa.operating_areas IS 'Operating areas of sharing providers from OpArea answers (providers[].areas[], geometry with operatingZoneGeometry=1). area_key is the single-column key for QGIS/GDAL; (provider_id, area_id) is unique.';
COMMENT ON COLUMN efa.operating_areas.area_key IS 'provider_id || ''/'' || area_id: single-column key for QGIS and GDAL.';
COMMENT ON COLUMN efa.operating_areas.provider_id IS 'OpArea providers[].id of the owning provider (efa.sharing_providers).';
COMMENT ON COLUMN efa.operating_areas.area_id IS 'OpArea providers[].areas[].id.';
COMMENT ON COLUMN efa.operating_areas.name IS 'OpArea providers[].areas[].name.';
COMMENT ON COLUMN efa.operating_areas.geom IS 'OpArea providers[].areas[].polygon: [lat, lon] points turned into lon/lat rings (closed where the answer left them open), made valid (ST_MakeValid) and kept as a MultiPolygon, EPSG:4326; NULL when the answer carried no geometry. An unrepairable polygon goes to efa.rejects.';
COMMENT ON COLUMN efa.operating_areas.attrs IS 'Every other field of the area as received (JSON); ringsClosedByParser = true when a ring had to be closed.';
COMMENT ON COLUMN efa.operating_areas.content_hash IS 'SHA-1 of the normalised row (geometry as received included); changed_run moves only when it changes.';
COMMENT ON COLUMN efa.operating_areas.first_run IS 'The run that first stored the area.';
COMMENT ON COLUMN efa.operating_areas.changed_run IS 'The last run that changed the area''s content.';
COMMENT ON COLUMN efa.operating_areas.deleted_at IS 'When a complete OpArea sweep no longer returned the area; NULL while it exists.';

-- run_seen, changes, rejects
COMMENT ON TABLE efa.run_seen IS 'The keys each run saw, per relation: the basis of deletion detection (what a complete sweep did not see is marked deleted/ended) and of resume.';
COMMENT ON COLUMN efa.run_seen.run_id IS 'The run (efa.runs).';
COMMENT ON COLUMN efa.run_seen.relation IS 'Entity table name: pins, lines, stop_lines, notices, sharing_providers or operating_areas.';
COMMENT ON COLUMN efa.run_seen.key IS 'The row''s key in that table (stop_lines: stop_id || ''|'' || line_key).';

COMMENT ON TABLE efa.changes IS 'Change log: one row per insert, content update, revival or deletion of an entity row, with the run that made it. A run against an unchanged API writes none.';
COMMENT ON COLUMN efa.changes.change_id IS 'Surrogate key, increasing.';
COMMENT ON COLUMN efa.changes.run_id IS 'The run that made the change (efa.runs).';
COMMENT ON COLUMN efa.changes.relation IS 'Entity table name: pins, lines, stop_lines, notices, sharing_providers or operating_areas.';
COMMENT ON COLUMN efa.changes.key IS 'The row''s key in that table (stop_lines: stop_id || ''|'' || line_key).';
COMMENT ON COLUMN efa.changes.op IS 'insert, update (content changed, or revived) or delete (deleted_at / ended_at set).';
COMMENT ON COLUMN efa.changes.detail IS 'Why, where op alone does not say it: revived (an update that cleared deleted_at), ended (a notice no longer published); NULL otherwise.';
COMMENT ON COLUMN efa.changes.at IS 'When the change was written.';

COMMENT ON TABLE efa.rejects IS 'Records of EFA answers that could not be normalised (missing fields, bad coordinates, unrepairable polygons), with the reason and the record as received: never silently dropped.';
COMMENT ON COLUMN efa.rejects.reject_id IS 'Surrogate key, increasing.';
COMMENT ON COLUMN efa.rejects.run_id IS 'The run that received the record (efa.runs).';
COMMENT ON COLUMN efa.rejects.operation IS 'EFA operation whose answer held the record: coordInfo, stopFinder, servingLines, addInfo or opArea.';
COMMENT ON COLUMN efa.rejects.reason IS 'Why the record was rejected.';
COMMENT ON COLUMN efa.rejects.raw IS 'The record as received (JSON).';
COMMENT ON COLUMN efa.rejects.at IS 'When the reject was written.';

