-- efa-sync schema, version 18: CoordInfo tiles that asked for some of the job's types only.
--
-- A night-one pilot (sweeps.coord.pilot, src/tiling/pilot.ts) sweeps the region in strata: the pilot
-- type with the types that lie elsewhere, then the types that lie where the pilot lies, each request
-- filtering for its stratum's types alone. One box can then be a unit of two strata (its tile id names
-- the stratum), and an answer proves absence only for the types it asked for.
--
-- 1. efa.run_tiles.types: the types a CoordInfo tile's request asked for; NULL = every type of the job
--    (every tile written before this version, and every tile of a run without a pilot).
ALTER TABLE efa.run_tiles ADD COLUMN types text[];
COMMENT ON COLUMN efa.run_tiles.types IS 'CoordInfo: the object types the tile''s request asked for (a stratum of a night swept by a pilot type); NULL = every type of the job''s coord sweep. A done tile proves absence only for these types.';

-- 2. Deletion scope: a done tile owns a pin only when its request asked for the pin's type.
--    And only a pin stored before the run can be gone in it. A pin the run stored itself (first_run =
--    the run; a resumed run keeps its run_id) was seen in the same transaction; a pin a later run of
--    another job stored meanwhile is that run's to judge, never this one's. So the difference starts
--    from the pins an earlier run stored, and a first night (none) reads no seen set at all: it was
--    0.36 s of nothing at 200,000 pins. Otherwise the body of sql/010's version.
CREATE OR REPLACE FUNCTION efa.gone_pins(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_scope jsonb;
  v_region geometry;
  v_max_x float8;
  v_max_y float8;
  v_unseen text[];
  v_rect boolean;
BEGIN
  SELECT r.source, r.scope -> 'relations' -> 'pins', ST_SetSRID(ST_GeomFromGeoJSON(r.scope ->> 'region'), 4326),
         (r.scope -> 'regionMax' ->> 0)::float8, (r.scope -> 'regionMax' ->> 1)::float8
    INTO v_source, v_scope, v_region, v_max_x, v_max_y
    FROM efa.runs r WHERE r.run_id = p_run;
  IF NOT EXISTS (SELECT 1 FROM efa.pins p WHERE p.source = v_source AND p.deleted_at IS NULL AND p.first_run < p_run) THEN
    RETURN;
  END IF;
  v_rect := efa.is_rectangle(v_region);
  SELECT array_agg(u.k) INTO v_unseen FROM (
    SELECT p.pin_key AS k FROM efa.pins p WHERE p.source = v_source AND p.deleted_at IS NULL AND p.first_run < p_run
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'pins') AS s
  ) u;
  IF v_unseen IS NULL THEN
    RETURN;
  END IF;
  -- Scope, region and tile ownership for the unseen pins only. EXECUTE plans with the array itself
  -- (its true length), never with a cached generic plan's guess: a few keys are found through the
  -- (source, pin_key) index, many through one scan with a hashed = ANY.
  RETURN QUERY EXECUTE $q$
    SELECT p.pin_key
    FROM efa.pins p
    WHERE p.source = $1 AND p.pin_key = ANY ($2) AND p.deleted_at IS NULL
      AND efa.pin_in_scope($3, p.type, p.mot_types)
      AND p.geom && $4 AND ($8 OR ST_Intersects($4, p.geom))
      AND EXISTS (
        SELECT 1 FROM efa.run_tiles t
        WHERE t.run_id = $5 AND t.operation = 'coordInfo' AND t.status = 'done' AND t.bbox && p.geom
          AND (t.types IS NULL OR p.type = ANY (t.types))
          AND efa.tile_owns(t.bbox, p.geom, $6, $7))
  $q$ USING v_source, v_unseen, v_scope, v_region, p_run, v_max_x, v_max_y, v_rect;
END
$$;
COMMENT ON FUNCTION efa.gone_pins(bigint) IS 'Keys of live pins of the run''s source stored by an earlier run, in its scope (types, MOT filters, region), owned by a complete CoordInfo tile of the run whose request asked for the pin''s type (run_tiles.types NULL or holding it), that the run did not see.';

-- 3. Coverage per stratum: efa.tile_coverage shows each leaf tile's types, so a capped tile of one
--    stratum is not read as a gap of every type. The view of sql/005 with one column added.
DROP MATERIALIZED VIEW efa.tile_coverage;
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
