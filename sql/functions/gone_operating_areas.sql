-- after: efa.candidates_seen_before, efa.operation_complete, efa.run_seen_keys
CREATE OR REPLACE FUNCTION efa.gone_operating_areas(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_candidates text[];
BEGIN
  IF NOT efa.operation_complete(p_run, 'opArea') THEN
    RETURN;
  END IF;
  SELECT r.source INTO v_source FROM efa.runs r WHERE r.run_id = p_run;
  SELECT array_agg(c.k) INTO v_candidates FROM (
    SELECT x.area_key AS k FROM efa.operating_areas x WHERE x.source = v_source AND x.deleted_at IS NULL
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'operating_areas') AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, 'operating_areas', v_candidates) AS c;
END
$$;
COMMENT ON FUNCTION efa.gone_operating_areas(bigint) IS 'Operating areas of the source the run''s complete OpArea sweep no longer has, seen before in the same scope.';
