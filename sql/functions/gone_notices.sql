-- after: efa.candidates_seen_before, efa.operation_complete, efa.run_seen_keys
CREATE OR REPLACE FUNCTION efa.gone_notices(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_candidates text[];
BEGIN
  IF NOT efa.operation_complete(p_run, 'addInfo')
     OR (SELECT r.scope -> 'relations' -> 'notices' ->> 'publicationStatus' FROM efa.runs r WHERE r.run_id = p_run) IS DISTINCT FROM 'current' THEN
    RETURN;
  END IF;
  SELECT r.source INTO v_source FROM efa.runs r WHERE r.run_id = p_run;
  SELECT array_agg(c.k) INTO v_candidates FROM (
    SELECT n.notice_id AS k FROM efa.notices n WHERE n.source = v_source AND n.ended_at IS NULL
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'notices') AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, 'notices', v_candidates) AS c;
END
$$;
COMMENT ON FUNCTION efa.gone_notices(bigint) IS 'Current notices of the source the run''s complete AddInfo sweep (publicationStatus current) no longer has, seen before in the same scope.';
