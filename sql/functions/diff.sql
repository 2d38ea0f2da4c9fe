-- after: efa.history_relations
-- What changed between two times, for any relation with history: added, removed and changed keys,
-- with the old and new row as JSON (bookkeeping columns left out, so a revival with the same content
-- or a version written again is not a change). The relations it takes are efa.history_relations(),
-- which is generated from the relations' declarations (src/relations/).
CREATE OR REPLACE FUNCTION efa.diff(relation text, from_at timestamptz, to_at timestamptz)
RETURNS TABLE (source text, key text, change text, old jsonb, new jsonb)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  k text;
BEGIN
  SELECT r.key_column INTO k FROM efa.history_relations() r WHERE r.relation = diff.relation;
  IF k IS NULL THEN
    RAISE EXCEPTION 'efa.diff: relation % keeps no history; use one of %', diff.relation,
      (SELECT string_agg(r.relation, ', ' ORDER BY r.relation) FROM efa.history_relations() r)
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY EXECUTE format($q$
    WITH a AS (
      SELECT x.source AS s, x.%1$I AS k,
             to_jsonb(x) - 'fid' - 'first_run' - 'changed_run' - 'content_hash' - 'version_from' - 'version_to' AS j
      FROM efa.%2$I($1) x
    ), b AS (
      SELECT x.source AS s, x.%1$I AS k,
             to_jsonb(x) - 'fid' - 'first_run' - 'changed_run' - 'content_hash' - 'version_from' - 'version_to' AS j
      FROM efa.%2$I($2) x
    )
    SELECT coalesce(a.s, b.s), coalesce(a.k, b.k),
           CASE WHEN a.k IS NULL THEN 'added' WHEN b.k IS NULL THEN 'removed' ELSE 'changed' END,
           a.j, b.j
    FROM a FULL JOIN b ON b.s = a.s AND b.k = a.k
    WHERE a.j IS DISTINCT FROM b.j
    ORDER BY 1, 2$q$, k, diff.relation || '_as_of') USING from_at, to_at;
END $$;
COMMENT ON FUNCTION efa.diff(text, timestamptz, timestamptz) IS 'What changed in a relation with history between two times: one row per key added, removed or changed, with the old and new row as JSON (fid, first_run, changed_run, content_hash and the version times left out). Any two times, such as ''2026-03-01''; over the last week: SELECT * FROM efa.diff(''pins'', now() - interval ''7 days'', now()).';
