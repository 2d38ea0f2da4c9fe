-- after: efa.is_rectangle, efa.pin_in_scope, efa.run_seen_keys, efa.tile_owns
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
