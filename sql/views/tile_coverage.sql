-- after:
CREATE MATERIALIZED VIEW efa.tile_coverage AS
  WITH latest AS (
    SELECT DISTINCT ON (r.job_name) r.run_id, r.job_name, r.source
    FROM efa.runs r
    WHERE EXISTS (SELECT 1 FROM efa.run_tiles t WHERE t.run_id = r.run_id AND t.operation = 'coordInfo')
    ORDER BY r.job_name, r.started_at DESC, r.run_id DESC
  )
  SELECT t.run_tile_id, l.job_name, t.run_id, t.tile_id, t.parent_id, t.depth, t.status, t.hits,
         t.status = 'capped' AS capped, t.status = 'failed' AS failed, t.attempts, t.duration_ms, t.error,
         CASE WHEN t.status = 'pending' THEN NULL ELSE t.fetched_at END AS last_fetched_at,
         t.bbox::geometry(Polygon, 4326) AS geom,
         l.source,
         t.types
  FROM latest l
  JOIN efa.run_tiles t ON t.run_id = l.run_id AND t.operation = 'coordInfo' AND t.status <> 'split';
CREATE UNIQUE INDEX tile_coverage_run_tile_uidx ON efa.tile_coverage (run_tile_id);
CREATE INDEX tile_coverage_geom_gix ON efa.tile_coverage USING gist (geom);
COMMENT ON MATERIALIZED VIEW efa.tile_coverage IS 'Coverage of the latest run of each job that swept CoordInfo: its leaf tiles (every status but split: a split tile is covered by its children) with hits and bbox. Capped or failed tiles are where objects may be missing (of the tile''s types only, where types is set). Materialized: as of its last refresh (at the end of each run).';
COMMENT ON COLUMN efa.tile_coverage.run_tile_id IS 'efa.run_tiles.run_tile_id (unique).';
COMMENT ON COLUMN efa.tile_coverage.job_name IS 'The job (efa.runs.job_name).';
COMMENT ON COLUMN efa.tile_coverage.run_id IS 'The job''s latest run with CoordInfo tiles.';
COMMENT ON COLUMN efa.tile_coverage.tile_id IS 'CoordInfo tile id (efa.run_tiles.tile_id).';
COMMENT ON COLUMN efa.tile_coverage.parent_id IS 'The tile it was split from; NULL for a root tile.';
COMMENT ON COLUMN efa.tile_coverage.depth IS 'Number of splits from the root tile.';
COMMENT ON COLUMN efa.tile_coverage.status IS 'done, incomplete, capped, failed, or pending (planned but not fetched: the run was interrupted there).';
COMMENT ON COLUMN efa.tile_coverage.hits IS 'Pins in the tile''s CoordInfo answer.';
COMMENT ON COLUMN efa.tile_coverage.capped IS 'True when the answer hit max and the tile was too small to split: objects beyond the cap may be missing.';
COMMENT ON COLUMN efa.tile_coverage.failed IS 'True when the tile failed after retries: its objects were kept, none marked deleted.';
COMMENT ON COLUMN efa.tile_coverage.attempts IS 'HTTP attempts for the tile.';
COMMENT ON COLUMN efa.tile_coverage.duration_ms IS 'Milliseconds from the first request to the stored result.';
COMMENT ON COLUMN efa.tile_coverage.error IS 'Last error of a failed tile.';
COMMENT ON COLUMN efa.tile_coverage.last_fetched_at IS 'When the tile''s result was recorded (efa.run_tiles.fetched_at); NULL for a pending tile.';
COMMENT ON COLUMN efa.tile_coverage.geom IS 'The tile''s bounding box (Polygon), EPSG:4326.';
COMMENT ON COLUMN efa.tile_coverage.source IS 'The source of the job''s run.';
COMMENT ON COLUMN efa.tile_coverage.types IS 'The object types the tile''s request asked for (efa.run_tiles.types); NULL = every type of the job.';
