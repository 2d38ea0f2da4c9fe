-- after: efa.parse_instant
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
COMMENT ON VIEW efa.current_parking IS 'Live parking objects with the parking fields of the answer as columns (the first of the names deployments use that is present; rapidJSON''s parkingDataSet of the published schema included). free_places is a measurement only (data_source REALTIME); a forecast from a day curve (PROFILE) is profile_free_places; as of the run that last changed the row.';
COMMENT ON COLUMN efa.current_parking.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_parking.source IS 'The deployment (source) of the object.';
COMMENT ON COLUMN efa.current_parking.pin_key IS 'The object''s key within its source.';
COMMENT ON COLUMN efa.current_parking.id IS 'The object''s EFA id.';
COMMENT ON COLUMN efa.current_parking.name IS 'Name of the car park or zone.';
COMMENT ON COLUMN efa.current_parking.kind IS 'Kind of parking object as sent (parkingObjectType bitmask value: 1 multi-storey, 2 car park, 4 single space, 8 zone, 32 charging point).';
COMMENT ON COLUMN efa.current_parking.capacity IS 'Number of places, where the answer says (capacity, totalSpaces, or the sum of rapidJSON parkingSpaces[].capacity).';
COMMENT ON COLUMN efa.current_parking.free_places IS 'Free places as measured (data_source REALTIME: rapidJSON parkingDataSet.freePlaces with dataSource REALTIME, json/legacy realtime.free or freeSpaces); NULL for a forecast or an unknown source.';
COMMENT ON COLUMN efa.current_parking.free_places_at IS 'When the measured free places were measured: measured_at where the answer says, else the end of the run that stored them.';
COMMENT ON COLUMN efa.current_parking.charge IS 'free or pay, where the answer says.';
COMMENT ON COLUMN efa.current_parking.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_parking.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_parking.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_parking.changed_run IS 'The run that last changed the object.';
COMMENT ON COLUMN efa.current_parking.data_source IS 'Where the free-places figure is from: REALTIME (measured; json/legacy realtime and freeSpaces count as REALTIME, servers send them only with parkObjInfoRealtime=1), PROFILE (a forecast from a day curve) or UNKNOWN (rapidJSON parkingDataSet without a known dataSource); NULL when the answer had no figure.';
COMMENT ON COLUMN efa.current_parking.measured_at IS 'When the figure was measured (rapidJSON parkingDataSet.measuredAt): with its offset as written, or without one (2026-11-24T09:58:00, as vendors send it) as wall time in the zone of the run that stored it (efa.runs.time_zone: the job''s timeZone, else its region''s). NULL when absent or not a date-time.';
COMMENT ON COLUMN efa.current_parking.profile_free_places IS 'Free places forecast from the object''s day curve (data_source PROFILE), apart from the measurement.';
