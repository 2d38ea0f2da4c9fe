-- after: efa.history_relations
-- Retention: versions that stopped being current before a time are dropped. A current row lives in
-- its entity table, never here, so no current version can be pruned.
CREATE OR REPLACE FUNCTION efa.prune_history(before timestamptz)
RETURNS TABLE (relation text, pruned bigint)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  n bigint;
BEGIN
  FOR r IN SELECT h.relation FROM efa.history_relations() h LOOP
    EXECUTE format('DELETE FROM efa.%I WHERE upper(valid) < $1', r.relation || '_history') USING before;
    GET DIAGNOSTICS n = ROW_COUNT;
    relation := r.relation;
    pruned := n;
    RETURN NEXT;
  END LOOP;
END $$;
COMMENT ON FUNCTION efa.prune_history(timestamptz) IS 'Retention: deletes history versions that stopped being current before the given time, per relation; returns how many. Current rows live in the entity tables and are never pruned (efa-sync history prune, or history.keepDays in the job).';
