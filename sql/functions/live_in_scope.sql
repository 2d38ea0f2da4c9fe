-- after: efa.is_rectangle, efa.pin_in_scope
-- The live rows of a relation a run's deletion check covers (the guard's denominator). Pins: the
-- region is parsed once, and the scope is asked once per kind of pin (type and means), not per row.
CREATE OR REPLACE FUNCTION efa.live_in_scope(p_run bigint, p_relation text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_source text;
  v_scope jsonb;
  v_region geometry;
  v_rect boolean;
  n bigint;
BEGIN
  SELECT r.source, r.scope -> 'relations' -> 'pins', ST_SetSRID(ST_GeomFromGeoJSON(r.scope ->> 'region'), 4326)
    INTO v_source, v_scope, v_region
    FROM efa.runs r WHERE r.run_id = p_run;
  IF p_relation = 'pins' THEN
    v_rect := efa.is_rectangle(v_region);
    SELECT coalesce(sum(g.n), 0) INTO n FROM (
      SELECT p.type, p.mot_types, count(*) AS n FROM efa.pins p
      WHERE p.source = v_source AND p.deleted_at IS NULL AND p.geom && v_region AND (v_rect OR ST_Intersects(v_region, p.geom))
      GROUP BY p.type, p.mot_types
    ) g WHERE efa.pin_in_scope(v_scope, g.type, g.mot_types);
  ELSIF p_relation = 'stop_lines' THEN
    SELECT count(*) INTO n FROM efa.stop_lines WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'lines' THEN
    SELECT count(*) INTO n FROM efa.lines WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'notices' THEN
    SELECT count(*) INTO n FROM efa.notices WHERE source = v_source AND ended_at IS NULL;
  ELSIF p_relation = 'sharing_providers' THEN
    SELECT count(*) INTO n FROM efa.sharing_providers WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'operating_areas' THEN
    SELECT count(*) INTO n FROM efa.operating_areas WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'sharing_stations' THEN
    -- As pins: the live stations inside the run's region (efa.gone_sharing_stations looks nowhere else).
    v_rect := efa.is_rectangle(v_region);
    SELECT count(*) INTO n FROM efa.sharing_stations s
    WHERE s.source = v_source AND s.deleted_at IS NULL AND s.geom && v_region AND (v_rect OR ST_Intersects(v_region, s.geom));
  ELSE
    RAISE EXCEPTION 'efa.live_in_scope: unknown relation %', p_relation;
  END IF;
  RETURN n;
END
$$;
