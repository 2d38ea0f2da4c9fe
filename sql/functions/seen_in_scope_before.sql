-- after:
-- Seen before in the same scope: asked for the few keys a run did not see; an array holds them.
CREATE OR REPLACE FUNCTION efa.seen_in_scope_before(p_run bigint, p_relation text, p_key text)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM efa.runs me
    JOIN efa.runs r ON r.source = me.source AND r.run_id < p_run
                   AND r.scope -> 'relations' -> p_relation = me.scope -> 'relations' -> p_relation
    JOIN efa.run_seen_sets s ON s.run_id = r.run_id AND s.relation = p_relation AND p_key = ANY (s.keys)
    WHERE me.run_id = p_run)
$$;
