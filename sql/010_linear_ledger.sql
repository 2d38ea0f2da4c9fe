-- Deletion predicates whose cost does not depend on the planner's guesses.
--
-- Why: since 007 a run's seen keys are arrays (one per written batch). The planner cannot know an
-- array's length (it guesses 10 elements), so `NOT EXISTS (... efa.run_seen ...)` over a run of
-- 200,000 pins was planned as a nested loop that unnested every seen set once per pin: 200,000 x
-- 200,000, more than 15 minutes in one statement, about 12 hours at a million. Fresh statistics do
-- not help: there are none for an array's elements.
--
-- The design: "live rows the run did not see" is a set difference, and it is written as one:
-- `live keys EXCEPT the run's seen keys`, and "seen before in the same scope" as `candidates
-- INTERSECT the earlier runs' keys`. PostgreSQL executes EXCEPT and INTERSECT as a sort or a hash
-- of both inputs, never as a loop of one input per row of the other, so whatever the planner
-- guesses about the arrays, each predicate reads every key once: linear (n log n for the sort).
-- The per-row work that remains (scope, region, tile ownership) runs only on what the difference
-- left, which on an ordinary night is the handful of objects really gone. The region's geometry and
-- the run's scope are read once per call (plpgsql variables), not parsed again for every row.
--
-- No second copy of the keys is written: the load keeps issue 9's arrays (one row per batch), and
-- the run's end reads them once per relation.

-- efa.seen_in_scope_before (sql/007), the scalar form, stays for analysts' queries (one key at a
-- time); the predicates below use the set form.

-- Whether a region is its own bounding box (a job's bbox region): then a point is inside it exactly
-- when it is inside the box (&&, boundary included, as ST_Intersects), which costs no geometry test.
CREATE FUNCTION efa.is_rectangle(g geometry) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT g IS NOT NULL AND ST_NPoints(g) = 5 AND ST_Equals(g, ST_Envelope(g))
$$;

-- A run's seen keys of one relation, as rows (read once per predicate, inside a set operation).
CREATE FUNCTION efa.run_seen_keys(p_run bigint, p_relation text) RETURNS TABLE (key text) LANGUAGE sql STABLE AS $$
  SELECT k.key FROM efa.run_seen_sets s CROSS JOIN LATERAL unnest(s.keys) AS k(key)
  WHERE s.run_id = p_run AND s.relation = p_relation
$$;

-- The keys an earlier run of the same source with the same scope for this relation saw.
CREATE FUNCTION efa.seen_keys_in_scope_before(p_run bigint, p_relation text) RETURNS TABLE (key text) LANGUAGE sql STABLE AS $$
  SELECT k.key
  FROM efa.runs me
  JOIN efa.runs r ON r.source = me.source AND r.run_id < p_run
                 AND r.scope -> 'relations' -> p_relation = me.scope -> 'relations' -> p_relation
  JOIN efa.run_seen_sets s ON s.run_id = r.run_id AND s.relation = p_relation
  CROSS JOIN LATERAL unnest(s.keys) AS k(key)
  WHERE me.run_id = p_run
$$;

-- Of candidate keys (live rows the run looked for and did not see), those seen before in scope:
-- only then is this run's "not found" about the same question. One INTERSECT.
CREATE FUNCTION efa.candidates_seen_before(p_run bigint, p_relation text, p_candidates text[]) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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

DROP FUNCTION efa.gone_pins(bigint);
CREATE FUNCTION efa.gone_pins(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  v_source text;
  v_scope jsonb;
  v_region geometry;
  v_max_x float8;
  v_max_y float8;
  v_unseen text[];
  v_rect boolean;
BEGIN
  SELECT r.source, r.scope -> 'relations' -> 'pins', ST_SetSRID(ST_GeomFromGeoJSON(r.scope ->> 'region'), 4326),
         (r.scope -> 'regionMax' ->> 0)::float8, (r.scope -> 'regionMax' ->> 1)::float8
    INTO v_source, v_scope, v_region, v_max_x, v_max_y
    FROM efa.runs r WHERE r.run_id = p_run;
  v_rect := efa.is_rectangle(v_region);
  SELECT array_agg(u.k) INTO v_unseen FROM (
    SELECT p.pin_key AS k FROM efa.pins p WHERE p.source = v_source AND p.deleted_at IS NULL
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'pins') AS s
  ) u;
  IF v_unseen IS NULL THEN
    RETURN;
  END IF;
  -- Scope, region and tile ownership for the unseen pins only. EXECUTE plans with the array itself
  -- (its true length), never with a cached generic plan's guess: a few keys are found through the
  -- (source, pin_key) index, many through one scan with a hashed = ANY.
  RETURN QUERY EXECUTE $q$
    SELECT p.pin_key
    FROM efa.pins p
    WHERE p.source = $1 AND p.pin_key = ANY ($2) AND p.deleted_at IS NULL
      AND efa.pin_in_scope($3, p.type, p.mot_types)
      AND p.geom && $4 AND ($8 OR ST_Intersects($4, p.geom))
      AND EXISTS (
        SELECT 1 FROM efa.run_tiles t
        WHERE t.run_id = $5 AND t.operation = 'coordInfo' AND t.status = 'done' AND t.bbox && p.geom
          AND efa.tile_owns(t.bbox, p.geom, $6, $7))
  $q$ USING v_source, v_unseen, v_scope, v_region, p_run, v_max_x, v_max_y, v_rect;
END
$$;

DROP FUNCTION efa.gone_stop_lines(bigint);
CREATE FUNCTION efa.gone_stop_lines(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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

DROP FUNCTION efa.gone_lines(bigint);
CREATE FUNCTION efa.gone_lines(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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

DROP FUNCTION efa.gone_notices(bigint);
CREATE FUNCTION efa.gone_notices(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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

DROP FUNCTION efa.gone_sharing_providers(bigint);
CREATE FUNCTION efa.gone_sharing_providers(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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
    SELECT x.provider_id AS k FROM efa.sharing_providers x WHERE x.source = v_source AND x.deleted_at IS NULL
    EXCEPT
    SELECT s.key FROM efa.run_seen_keys(p_run, 'sharing_providers') AS s
  ) c;
  RETURN QUERY SELECT c.key FROM efa.candidates_seen_before(p_run, 'sharing_providers', v_candidates) AS c;
END
$$;

DROP FUNCTION efa.gone_operating_areas(bigint);
CREATE FUNCTION efa.gone_operating_areas(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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

-- The live rows of a relation a run's deletion check covers (the guard's denominator). Pins: the
-- region is parsed once, and the scope is asked once per kind of pin (type and means), not per row.
CREATE OR REPLACE FUNCTION efa.live_in_scope(p_run bigint, p_relation text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_source text;
  v_scope jsonb;
  v_region geometry;
  v_rect boolean;
  n bigint;
BEGIN
  SELECT r.source, r.scope -> 'relations' -> 'pins', ST_SetSRID(ST_GeomFromGeoJSON(r.scope ->> 'region'), 4326)
    INTO v_source, v_scope, v_region
    FROM efa.runs r WHERE r.run_id = p_run;
  IF p_relation = 'pins' THEN
    v_rect := efa.is_rectangle(v_region);
    SELECT coalesce(sum(g.n), 0) INTO n FROM (
      SELECT p.type, p.mot_types, count(*) AS n FROM efa.pins p
      WHERE p.source = v_source AND p.deleted_at IS NULL AND p.geom && v_region AND (v_rect OR ST_Intersects(v_region, p.geom))
      GROUP BY p.type, p.mot_types
    ) g WHERE efa.pin_in_scope(v_scope, g.type, g.mot_types);
  ELSIF p_relation = 'stop_lines' THEN
    SELECT count(*) INTO n FROM efa.stop_lines WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'lines' THEN
    SELECT count(*) INTO n FROM efa.lines WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'notices' THEN
    SELECT count(*) INTO n FROM efa.notices WHERE source = v_source AND ended_at IS NULL;
  ELSIF p_relation = 'sharing_providers' THEN
    SELECT count(*) INTO n FROM efa.sharing_providers WHERE source = v_source AND deleted_at IS NULL;
  ELSIF p_relation = 'operating_areas' THEN
    SELECT count(*) INTO n FROM efa.operating_areas WHERE source = v_source AND deleted_at IS NULL;
  ELSE
    RAISE EXCEPTION 'efa.live_in_scope: unknown relation %', p_relation;
  END IF;
  RETURN n;
END
$$;

COMMENT ON FUNCTION efa.is_rectangle(geometry) IS 'Whether a polygon is its own bounding box (a bbox region): points inside it are then found with && alone.';
COMMENT ON FUNCTION efa.run_seen_keys(bigint, text) IS 'The keys a run saw in one relation, one row per key and batch (efa.run_seen_sets unnested).';
COMMENT ON FUNCTION efa.seen_keys_in_scope_before(bigint, text) IS 'The keys earlier runs of the run''s source with the same scope for the relation saw.';
COMMENT ON FUNCTION efa.candidates_seen_before(bigint, text, text[]) IS 'Of the candidate keys, those an earlier run of the same source and scope saw (one INTERSECT).';
COMMENT ON FUNCTION efa.gone_pins(bigint) IS 'Keys of live pins of the run''s source, in its scope (types, MOT filters, region), owned by a complete CoordInfo tile of the run, that the run did not see.';
COMMENT ON FUNCTION efa.gone_stop_lines(bigint) IS 'Stop-line pairs of stops whose ServingLines answer the run fetched and trusted that the answer no longer has (and that an earlier run of the same scope saw), and pairs of stops that are gone.';
COMMENT ON FUNCTION efa.gone_lines(bigint) IS 'Lines no live stop of the source is served by any more, not seen in the run''s complete ServingLines sweep, seen before in the same scope.';
COMMENT ON FUNCTION efa.gone_notices(bigint) IS 'Current notices of the source the run''s complete AddInfo sweep (publicationStatus current) no longer has, seen before in the same scope.';
COMMENT ON FUNCTION efa.gone_sharing_providers(bigint) IS 'Sharing providers of the source the run''s complete OpArea sweep no longer has, seen before in the same scope.';
COMMENT ON FUNCTION efa.gone_operating_areas(bigint) IS 'Operating areas of the source the run''s complete OpArea sweep no longer has, seen before in the same scope.';

-- "Were this stop's lines ever fetched for this source" is asked per due stop; without run_id the
-- (run_id, operation, subject) index cannot answer it.
CREATE INDEX run_tiles_op_subject_idx ON efa.run_tiles (operation, subject) WHERE subject IS NOT NULL;
