-- efa-sync schema, version 17: what a first night pays per row, where a set-based rule does the same.
--
-- 1. first_run / changed_run of the relations are no longer foreign keys. A foreign key is checked
--    per inserted row (two look-ups into efa.runs, each a locking SELECT run through SPI): measured on
--    PostgreSQL 15, 200,582 pins inserted in 2.19 s without them and 3.32 s with them (+52 %), a
--    third of a first night's load. Only efa-sync writes these columns, always with the run it holds
--    (its row is committed before the first batch). What the keys also promised, that the run a row
--    names is never gone, efa.runs now promises itself: it is append-only (the trigger below refuses
--    DELETE and TRUNCATE; nothing in efa-sync ever deleted a run). The ledger's own references to
--    efa.runs (run_tiles, run_seen_sets, change_sets, rejects, snapshots) are one row per tile or
--    batch and stay foreign keys.
ALTER TABLE efa.pins DROP CONSTRAINT pins_first_run_fkey, DROP CONSTRAINT pins_changed_run_fkey;
ALTER TABLE efa.lines DROP CONSTRAINT lines_first_run_fkey, DROP CONSTRAINT lines_changed_run_fkey;
ALTER TABLE efa.stop_lines DROP CONSTRAINT stop_lines_first_run_fkey, DROP CONSTRAINT stop_lines_changed_run_fkey;
ALTER TABLE efa.notices DROP CONSTRAINT notices_first_run_fkey, DROP CONSTRAINT notices_changed_run_fkey;
ALTER TABLE efa.sharing_providers DROP CONSTRAINT sharing_providers_first_run_fkey, DROP CONSTRAINT sharing_providers_changed_run_fkey;
ALTER TABLE efa.operating_areas DROP CONSTRAINT operating_areas_first_run_fkey, DROP CONSTRAINT operating_areas_changed_run_fkey;

CREATE FUNCTION efa.runs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'efa.runs is append-only: the first_run and changed_run of every relation, and its history, name these runs'
    USING HINT = 'To start a warehouse afresh, drop schema efa (DROP SCHEMA efa CASCADE) and run efa-sync migrate.';
END $$;
CREATE TRIGGER runs_append_only BEFORE DELETE ON efa.runs FOR EACH ROW EXECUTE FUNCTION efa.runs_append_only();
CREATE TRIGGER runs_no_truncate BEFORE TRUNCATE ON efa.runs FOR EACH STATEMENT EXECUTE FUNCTION efa.runs_append_only();
COMMENT ON FUNCTION efa.runs_append_only() IS 'Refuses DELETE and TRUNCATE on efa.runs: every relation''s first_run and changed_run name a run (no foreign key checks them per row since schema version 17).';

-- 2. Only a pin stored before the run can be gone in it. A pin the run stored itself (first_run =
--    the run; a resumed run keeps its run_id) was seen in the same transaction; a pin a later run
--    of another job stored meanwhile is that run's to judge, never this one's. So the difference
--    starts from the pins an earlier run stored, and a first night (none) reads no seen set at all:
--    it was 0.36 s of nothing at 200,000 pins.
CREATE OR REPLACE FUNCTION efa.gone_pins(p_run bigint) RETURNS TABLE (key text) LANGUAGE plpgsql STABLE AS $$
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
  IF NOT EXISTS (SELECT 1 FROM efa.pins p WHERE p.source = v_source AND p.deleted_at IS NULL AND p.first_run < p_run) THEN
    RETURN;
  END IF;
  v_rect := efa.is_rectangle(v_region);
  SELECT array_agg(u.k) INTO v_unseen FROM (
    SELECT p.pin_key AS k FROM efa.pins p WHERE p.source = v_source AND p.deleted_at IS NULL AND p.first_run < p_run
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
COMMENT ON FUNCTION efa.gone_pins(bigint) IS 'Keys of live pins of the run''s source stored by an earlier run, in its scope (types, MOT filters, region), owned by a complete CoordInfo tile of the run, that the run did not see.';
