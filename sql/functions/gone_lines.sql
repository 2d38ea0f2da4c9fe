-- after: efa.candidates_seen_before, efa.operation_complete, efa.run_seen_keys
CREATE OR REPLACE FUNCTION efa.gone_lines(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_candidates text[];
BEGIN
  IF NOT efa.operation_complete(p_run, 'servingLines') THEN
    RETURN;
  END IF;
  SELECT r.source INTO v_source FROM efa.runs r WHERE r.run_id = p_run;
  -- Lines no live stop of the source is served by any more, not seen in a complete ServingLines sweep.
  SELECT array_agg(c.k) INTO v_candidates FROM (
    SELECT l.line_key AS k FROM efa.lines l
    WHERE l.source = v_source AND l.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM efa.stop_lines sl WHERE sl.source = l.source AND sl.line_key = l.line_key AND sl.deleted_at IS NULL)
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'lines') AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, 'lines', v_candidates) AS c;
END
$$;
COMMENT ON FUNCTION efa.gone_lines(bigint) IS 'Lines no live stop of the source is served by any more, not seen in the run''s complete ServingLines sweep, seen before in the same scope.';
