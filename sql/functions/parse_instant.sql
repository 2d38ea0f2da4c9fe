-- after:
-- An ISO 8601 instant with its zone (Z or an offset) as timestamptz; null for anything else, a
-- time without a zone included (it names no instant). Never raises, so a view over answers as
-- received cannot be broken by one bad value. src/snapshot/rows.ts instantOf reads the same way.
CREATE OR REPLACE FUNCTION efa.parse_instant(value text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF value IS NULL OR btrim(value) !~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$' THEN
    RETURN NULL;
  END IF;
  RETURN btrim(value)::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
COMMENT ON FUNCTION efa.parse_instant(text) IS 'An ISO 8601 instant with Z or an offset as timestamptz; NULL for anything else (a time without a zone names no instant). Never raises.';

-- An ISO 8601 date-time as timestamptz: with Z or an offset as written; without one, as wall time in
-- `zone` (DST edges as PostgreSQL resolves them: a time in a spring-forward gap takes the offset before
-- the change, a time that occurs twice is the later instant; src/util/time-zone.ts does the same).
-- NULL for anything else, or without a zone for a zone-less time. Never raises.
CREATE OR REPLACE FUNCTION efa.parse_instant(value text, zone text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
  v text := btrim(value);
BEGIN
  IF v IS NULL THEN
    RETURN NULL;
  END IF;
  IF v ~ '^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$' THEN
    RETURN v::timestamptz;
  END IF;
  IF zone IS NOT NULL AND v ~ '^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$' THEN
    RETURN v::timestamp AT TIME ZONE zone;
  END IF;
  RETURN NULL;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
COMMENT ON FUNCTION efa.parse_instant(text, text) IS 'An ISO 8601 date-time as timestamptz: with Z or an offset as written, without one as wall time in the IANA zone given (a spring-forward gap takes the offset before the change, a repeated hour the later instant). NULL for anything else. Never raises.';
