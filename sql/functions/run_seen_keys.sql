-- after:
-- A run's seen keys of one relation, as rows (read once per predicate, inside a set operation).
CREATE OR REPLACE FUNCTION efa.run_seen_keys(p_run bigint, p_relation text) RETURNS TABLE (key text) LANGUAGE sql STABLE AS $$
  SELECT k.key FROM efa.run_seen_sets s CROSS JOIN LATERAL unnest(s.keys) AS k(key)
  WHERE s.run_id = p_run AND s.relation = p_relation
$$;
COMMENT ON FUNCTION efa.run_seen_keys(bigint, text) IS 'The keys a run saw in one relation, one row per key and batch (efa.run_seen_sets unnested).';
