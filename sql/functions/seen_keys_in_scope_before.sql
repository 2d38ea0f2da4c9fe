-- after:
-- The keys an earlier run of the same source with the same scope for this relation saw.
CREATE OR REPLACE FUNCTION efa.seen_keys_in_scope_before(p_run bigint, p_relation text) RETURNS TABLE (key text) LANGUAGE sql STABLE AS $$
  SELECT k.key
  FROM efa.runs me
  JOIN efa.runs r ON r.source = me.source AND r.run_id < p_run
                 AND r.scope -> 'relations' -> p_relation = me.scope -> 'relations' -> p_relation
  JOIN efa.run_seen_sets s ON s.run_id = r.run_id AND s.relation = p_relation
  CROSS JOIN LATERAL unnest(s.keys) AS k(key)
  WHERE me.run_id = p_run
$$;
COMMENT ON FUNCTION efa.seen_keys_in_scope_before(bigint, text) IS 'The keys earlier runs of the run''s source with the same scope for the relation saw.';
