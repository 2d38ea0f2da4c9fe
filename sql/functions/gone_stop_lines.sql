-- after: efa.candidates_seen_before, efa.run_seen_keys
CREATE OR REPLACE FUNCTION efa.gone_stop_lines(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_candidates text[];
BEGIN
  SELECT r.source INTO v_source FROM efa.runs r WHERE r.run_id = p_run;
  -- Pairs of stops whose ServingLines answer this run fetched and trusted, that the answer no longer has.
  SELECT array_agg(c.k) INTO v_candidates FROM (
    SELECT sl.pair_key AS k
    FROM efa.run_tiles t
    JOIN efa.stop_lines sl ON sl.source = v_source AND sl.stop_id = t.subject AND sl.deleted_at IS NULL
    WHERE t.run_id = p_run AND t.operation = 'servingLines' AND t.status = 'done'
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'stop_lines') AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, 'stop_lines', v_candidates) AS c;
  -- And the pairs of stops of the source that are gone (no live stop with that id is left).
  RETURN QUERY
    SELECT sl.pair_key
    FROM efa.stop_lines sl
    WHERE sl.source = v_source AND sl.deleted_at IS NULL
      AND EXISTS (SELECT 1 FROM efa.pins p WHERE p.source = sl.source AND p.type = 'STOP' AND p.id = sl.stop_id AND p.deleted_at IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM efa.pins p WHERE p.source = sl.source AND p.type = 'STOP' AND p.id = sl.stop_id AND p.deleted_at IS NULL);
END
$$;
COMMENT ON FUNCTION efa.gone_stop_lines(bigint) IS 'Stop-line pairs of stops whose ServingLines answer the run fetched and trusted that the answer no longer has (and that an earlier run of the same scope saw), and pairs of stops that are gone.';
