-- after: efa.seen_keys_in_scope_before
-- Of candidate keys (live rows the run looked for and did not see), those seen before in scope:
-- only then is this run's "not found" about the same question. One INTERSECT.
CREATE OR REPLACE FUNCTION efa.candidates_seen_before(p_run bigint, p_relation text, p_candidates text[]) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  IF p_candidates IS NULL OR cardinality(p_candidates) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
    SELECT c.key FROM unnest(p_candidates) AS c(key)
    INTERSECT
    SELECT b.key FROM efa.seen_keys_in_scope_before(p_run, p_relation) AS b;
END
$$;
COMMENT ON FUNCTION efa.candidates_seen_before(bigint, text, text[]) IS 'Of the candidate keys, those an earlier run of the same source and scope saw (one INTERSECT).';
