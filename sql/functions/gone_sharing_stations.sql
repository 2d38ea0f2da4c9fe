-- after: efa.is_rectangle, efa.run_seen_keys, efa.tile_owns
-- Deletion scope of efa.sharing_stations (src/relations/sharing-stations.ts), as efa.gone_pins: a
-- station stored by an earlier run of the source, not seen by this run, inside its region, whose
-- place a done CoordInfo tile of the run owns; and that tile asked for sharing objects (every type
-- of the job, or a stratum holding ANY or SHARING). A tile where a station could not be read is
-- incomplete, never done (src/sweep/stations.ts), so a station is never gone for being unreadable.
CREATE OR REPLACE FUNCTION efa.gone_sharing_stations(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_scope jsonb;
  v_region geometry;
  v_max_x float8;
  v_max_y float8;
  v_unseen text[];
BEGIN
  SELECT r.source, r.scope -> 'relations' -> 'sharing_stations', ST_SetSRID(ST_GeomFromGeoJSON(r.scope ->> 'region'), 4326),
         (r.scope -> 'regionMax' ->> 0)::float8, (r.scope -> 'regionMax' ->> 1)::float8
    INTO v_source, v_scope, v_region, v_max_x, v_max_y
    FROM efa.runs r WHERE r.run_id = p_run;
  IF v_scope IS NULL THEN
    RETURN;
  END IF;
  SELECT array_agg(u.k) INTO v_unseen FROM (
    SELECT s.station_key AS k FROM efa.sharing_stations s WHERE s.source = v_source AND s.deleted_at IS NULL AND s.first_run < p_run
    EXCEPT
    SELECT k.key FROM efa.run_seen_keys(p_run, 'sharing_stations') AS k
  ) u;
  IF v_unseen IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
    SELECT s.station_key
    FROM efa.sharing_stations s
    WHERE s.source = v_source AND s.station_key = ANY (v_unseen) AND s.deleted_at IS NULL
      AND s.geom && v_region AND (efa.is_rectangle(v_region) OR ST_Intersects(v_region, s.geom))
      AND EXISTS (
        SELECT 1 FROM efa.run_tiles t
        WHERE t.run_id = p_run AND t.operation = 'coordInfo' AND t.status = 'done' AND t.bbox && s.geom
          AND (t.types IS NULL OR t.types && ARRAY['ANY', 'SHARING'])
          AND efa.tile_owns(t.bbox, s.geom, v_max_x, v_max_y));
END
$$;
COMMENT ON FUNCTION efa.gone_sharing_stations(bigint) IS 'Keys of live sharing stations of the run''s source stored by an earlier run, inside its region, whose place a complete CoordInfo tile of the run owns (a tile that asked for sharing objects: every type, or ANY or SHARING), that the run did not see.';
