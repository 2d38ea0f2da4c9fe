-- after:
-- Whether a CoordInfo sweep with this scope looked for a pin of this kind and these means of
-- transport. MOT filters are read conservatively: a stop is in an inclMOT scope only when all its
-- means are included, and out of an exclMOT scope when any is excluded (the server's reading of a
-- mixed stop is not documented; when in doubt, do not delete).
CREATE OR REPLACE FUNCTION efa.pin_in_scope(coord jsonb, pin_type text, mot integer[])
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN coord IS NULL OR jsonb_typeof(coord) <> 'object' THEN false
    WHEN pin_type = 'PARKING' THEN coalesce((coord ->> 'parkingAll')::boolean, false)
    WHEN pin_type = 'STOP' AND NOT coalesce((coord ->> 'any')::boolean, false) THEN
      coord -> 'types' ? 'STOP'
      AND (coord -> 'inclMOT' IS NULL OR jsonb_typeof(coord -> 'inclMOT') = 'null'
           OR (cardinality(mot) > 0 AND mot <@ ARRAY(SELECT jsonb_array_elements_text(coord -> 'inclMOT')::int)))
      AND (coord -> 'exclMOT' IS NULL OR jsonb_typeof(coord -> 'exclMOT') = 'null'
           OR NOT (mot && ARRAY(SELECT jsonb_array_elements_text(coord -> 'exclMOT')::int)))
    ELSE coord -> 'types' ? pin_type OR coalesce((coord ->> 'any')::boolean, false)
  END
$$;
