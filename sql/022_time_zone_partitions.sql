-- efa-sync schema, version 22: zone-less times read in the deployment's zone, and the day partitions
-- of the snapshot tables out of the analysts' schema.
--
-- Times EFA servers write without an offset (parking measuredAt `2026-11-24T09:58:00`, legacy
-- itdDate/itdTime) are the deployment's wall clock. Until now they were NULL (no instant). A run now
-- reads them in a time zone (the job's timeZone, else the zone of its region's centre) and records
-- it in efa.runs.time_zone, so SQL can read the text of an answer the same way.

ALTER TABLE efa.runs ADD COLUMN time_zone text;
COMMENT ON COLUMN efa.runs.time_zone IS 'The IANA time zone the run read times written without an offset in (parking measuredAt, legacy itdDate/itdTime): the job''s timeZone, else the zone at the centre of its region. NULL for runs before schema version 22.';

-- An ISO 8601 date-time as timestamptz: with Z or an offset as written; without one, as wall time in
-- `zone` (DST edges as PostgreSQL resolves them: a time in a spring-forward gap takes the offset before
-- the change, a time that occurs twice is the later instant; src/util/time-zone.ts does the same).
-- NULL for anything else, or without a zone for a zone-less time. Never raises.
CREATE FUNCTION efa.parse_instant(value text, zone text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
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

-- efa.current_parking as in sql/011, with measured_at read in the zone of the run that stored the row
-- (else the newest zone recorded for its source), and free_places_at the measurement's time where the
-- answer gives one: a reading two days old is not "read" at the end of today's run.
CREATE OR REPLACE VIEW efa.current_parking AS
  WITH p AS (
    SELECT p.*,
           coalesce(
             CASE WHEN jsonb_typeof(p.attrs -> 'coordInfoDetails' -> 'parkingDataSet') = 'object' THEN p.attrs -> 'coordInfoDetails' -> 'parkingDataSet' END,
             CASE WHEN jsonb_typeof(p.attrs -> 'parkingRealtimeInfo') = 'object' THEN p.attrs -> 'parkingRealtimeInfo' END,
             CASE WHEN jsonb_typeof(p.attrs -> 'dataSet') = 'object' THEN p.attrs -> 'dataSet' END
           ) AS data_set,
           CASE WHEN jsonb_typeof(p.attrs -> 'realtime') = 'object' THEN p.attrs -> 'realtime' END AS legacy_realtime
    FROM efa.pins p
    WHERE p.type = 'PARKING' AND p.deleted_at IS NULL
  ), f AS (
    SELECT p.*,
           coalesce(p.legacy_realtime ->> 'free', p.attrs ->> 'freeSpaces') AS legacy_free,
           CASE WHEN p.data_set ->> 'freePlaces' ~ '^[0-9]+(\.[0-9]+)?$' THEN round((p.data_set ->> 'freePlaces')::numeric)::int END AS set_free,
           CASE WHEN coalesce(p.legacy_realtime ->> 'free', p.attrs ->> 'freeSpaces') ~ '^[0-9]+$' THEN 'REALTIME'
                WHEN p.data_set ->> 'freePlaces' ~ '^[0-9]+(\.[0-9]+)?$' OR p.data_set ? 'dataSource'
                  THEN CASE WHEN upper(p.data_set ->> 'dataSource') IN ('REALTIME', 'PROFILE', 'UNKNOWN') THEN upper(p.data_set ->> 'dataSource') ELSE 'UNKNOWN' END
           END AS source_of_figure,
           (SELECT sum((e ->> 'capacity')::int) FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.attrs -> 'parkingSpaces') = 'array' THEN p.attrs -> 'parkingSpaces' ELSE '[]'::jsonb END) e
            WHERE e ->> 'capacity' ~ '^[0-9]+$')::int AS space_capacity
    FROM p
  ), m AS (
    SELECT f.*, r.finished_at AS run_finished_at,
           efa.parse_instant(f.data_set ->> 'measuredAt',
             coalesce(r.time_zone, (SELECT z.time_zone FROM efa.runs z WHERE z.source = f.source AND z.time_zone IS NOT NULL ORDER BY z.run_id DESC LIMIT 1))) AS measured
    FROM f
    LEFT JOIN efa.runs r ON r.run_id = f.changed_run
  )
  SELECT m.fid, m.source, m.pin_key, m.id, m.name,
         coalesce(m.attrs ->> 'parkingObjectType', m.attrs ->> 'type', m.attrs ->> 'kind') AS kind,
         coalesce(CASE WHEN coalesce(m.attrs ->> 'capacity', m.attrs ->> 'totalSpaces') ~ '^[0-9]+$'
                       THEN coalesce(m.attrs ->> 'capacity', m.attrs ->> 'totalSpaces')::int END, m.space_capacity) AS capacity,
         CASE WHEN m.legacy_free ~ '^[0-9]+$' THEN m.legacy_free::int
              WHEN m.source_of_figure = 'REALTIME' THEN m.set_free END AS free_places,
         CASE WHEN m.legacy_free ~ '^[0-9]+$' OR (m.source_of_figure = 'REALTIME' AND m.set_free IS NOT NULL) THEN coalesce(m.measured, m.run_finished_at) END AS free_places_at,
         m.attrs ->> 'charge' AS charge,
         ST_X(m.geom) AS lon, ST_Y(m.geom) AS lat, m.geom, m.changed_run,
         m.source_of_figure AS data_source,
         m.measured AS measured_at,
         CASE WHEN m.source_of_figure = 'PROFILE' THEN m.set_free END AS profile_free_places
  FROM m;

COMMENT ON COLUMN efa.current_parking.free_places_at IS 'When the measured free places were measured: measured_at where the answer says, else the end of the run that stored them.';
COMMENT ON COLUMN efa.current_parking.measured_at IS 'When the figure was measured (rapidJSON parkingDataSet.measuredAt): with its offset as written, or without one (2026-11-24T09:58:00, as vendors send it) as wall time in the zone of the run that stored it (efa.runs.time_zone: the job''s timeZone, else its region''s). NULL when absent or not a date-time.';
COMMENT ON COLUMN efa.parking_snapshots.measured_at IS 'When the figure was measured (rapidJSON parkingDataSet.measuredAt): with its offset as written, or without one as wall time in the run''s time zone (efa.runs.time_zone). NULL when the answer gives no time (taken_at is when it was read).';

-- The day partitions move to a schema of their own. GIS tools list every table of every schema they
-- may read: 270 partitions at the default retention buried the analyst's layers. Queries name the
-- parents (efa.vehicle_snapshots, ...), which PostgreSQL routes to the partitions wherever they live;
-- privileges on a parent cover its partitions, so a reader role needs nothing in efa_partitions.
CREATE SCHEMA IF NOT EXISTS efa_partitions;
COMMENT ON SCHEMA efa_partitions IS 'The day partitions of efa.snapshot_tiles, efa.vehicle_snapshots and efa.parking_snapshots (efa-sync). Query the parents in schema efa; nothing here is meant to be read directly.';

DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT c.relname::text AS part
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    JOIN pg_namespace cn ON cn.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND cn.nspname = 'efa' AND p.relname = ANY (efa.snapshot_tables())
  LOOP
    EXECUTE format('ALTER TABLE efa.%I SET SCHEMA efa_partitions', r.part);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION efa.ensure_snapshot_partitions(day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
BEGIN
  -- The reader-proof lock of sql/020 (a reader can take no advisory key that blocks this).
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOREACH t IN ARRAY efa.snapshot_tables() LOOP
    part := t || '_' || to_char(day, 'YYYYMMDD');
    IF to_regclass('efa_partitions.' || part) IS NULL AND to_regclass('efa.' || part) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE efa_partitions.%I PARTITION OF efa.%I FOR VALUES FROM (%L) TO (%L)',
                       part, t, (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
      EXCEPTION WHEN duplicate_table THEN
        NULL;
      END;
    END IF;
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION efa.drop_snapshot_partitions(keep_from date) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  -- The reader-proof lock of sql/020 (a reader can take no advisory key that blocks this).
  LOCK TABLE efa_private.snapshot_partitions_lock IN EXCLUSIVE MODE;
  FOR r IN
    SELECT c.relname::text AS part, cn.nspname::text AS schema_name
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    JOIN pg_namespace cn ON cn.oid = c.relnamespace
    WHERE n.nspname = 'efa' AND p.relname = ANY (efa.snapshot_tables())
      AND c.relname ~ '_[0-9]{8}$'
      AND to_date(right(c.relname, 8), 'YYYYMMDD') < keep_from
    ORDER BY 1
  LOOP
    EXECUTE format('DROP TABLE %I.%I', r.schema_name, r.part);
    RETURN NEXT r.part;
  END LOOP;
  DELETE FROM efa.snapshots WHERE taken_at < (keep_from::timestamp AT TIME ZONE 'UTC');
END $$;
