-- efa-sync schema, version 11: where a parking figure comes from, and sharing vehicles at stations.
-- The interface's published rapidJSON schema gives each parking object's figures a data source:
-- REALTIME (measured), PROFILE (read off a day curve: a forecast) or UNKNOWN, and the time they
-- were measured. Until now nothing told them apart and the occupancy views averaged forecasts as
-- if they were readings. Now the snapshots and efa.current_parking carry the source and time, and
-- the views count only REALTIME figures as measurements, with profile figures in columns of their own.

-- An ISO 8601 instant with its zone (Z or an offset) as timestamptz; null for anything else, a
-- time without a zone included (it names no instant). Never raises, so a view over answers as
-- received cannot be broken by one bad value. src/snapshot/rows.ts instantOf reads the same way.
CREATE FUNCTION efa.parse_instant(value text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF value IS NULL OR btrim(value) !~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$' THEN
    RETURN NULL;
  END IF;
  RETURN btrim(value)::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
COMMENT ON FUNCTION efa.parse_instant(text) IS 'An ISO 8601 instant with Z or an offset as timestamptz; NULL for anything else (a time without a zone names no instant). Never raises.';

ALTER TABLE efa.parking_snapshots
  ADD COLUMN data_source text CHECK (data_source IN ('REALTIME', 'PROFILE', 'UNKNOWN')),
  ADD COLUMN measured_at timestamptz,
  ADD COLUMN occ real,
  ADD COLUMN occ_los real,
  ADD COLUMN occ_level text,
  ADD COLUMN occ_trend real;

-- Rows stored before this version read only the json/legacy `realtime` and `freeSpaces` fields,
-- which servers send with parkObjInfoRealtime=1 alone: their figures are measurements.
UPDATE efa.parking_snapshots SET data_source = 'REALTIME' WHERE free IS NOT NULL AND data_source IS NULL;

COMMENT ON COLUMN efa.parking_snapshots.data_source IS 'Where free is from: REALTIME (measured), PROFILE (a forecast from the object''s day curve, rapidJSON parkingDataSet.dataSource) or UNKNOWN (the answer names no source); NULL when the answer had no figure. json and legacy realtime/freeSpaces figures are REALTIME. The views count only REALTIME as measured.';
COMMENT ON COLUMN efa.parking_snapshots.measured_at IS 'When the figure was measured (rapidJSON parkingDataSet.measuredAt, UTC in the published schema; an offset in the answer is honoured). NULL when the answer gives no time or one without a zone (taken_at is when it was read).';
COMMENT ON COLUMN efa.parking_snapshots.occ IS 'rapidJSON parkingDataSet.occ as sent (the deployment''s occupancy figure).';
COMMENT ON COLUMN efa.parking_snapshots.occ_los IS 'rapidJSON parkingDataSet.occLOS as sent (occupancy level of service).';
COMMENT ON COLUMN efa.parking_snapshots.occ_level IS 'rapidJSON parkingDataSet.occLevel as sent (the deployment''s occupancy word).';
COMMENT ON COLUMN efa.parking_snapshots.occ_trend IS 'rapidJSON parkingDataSet.occTrend as sent (filling or emptying).';

ALTER TABLE efa.vehicle_snapshots
  ADD COLUMN station_id text,
  ADD COLUMN station_slots jsonb,
  ADD COLUMN model text,
  ADD COLUMN range_km real;
COMMENT ON COLUMN efa.vehicle_snapshots.station_id IS 'The sharing station the vehicle stands at (rapidJSON coordInfoDetails.station.id), for station-based sharing; NULL for free-floating vehicles.';
COMMENT ON COLUMN efa.vehicle_snapshots.station_slots IS 'That station''s slot counts as sent, per slot kind: {"carSlots": {"totalSlots", "emptySlots", "freeVehicles"}, "bikeSlots": …}, with stNum and oOS (out of service) where sent.';
COMMENT ON COLUMN efa.vehicle_snapshots.model IS 'Vehicle model (rapidJSON vehicle.vehModel).';
COMMENT ON COLUMN efa.vehicle_snapshots.range_km IS 'Remaining range in km (rapidJSON vehicle.rangeKm, sent as text).';

-- The occupancy views: free_* and occupancy_avg over REALTIME readings only; profile figures apart.
CREATE OR REPLACE VIEW efa.parking_occupancy_hourly AS
  SELECT s.source, s.job_name, h.hour, p.parking_key,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity) AS capacity,
         h.snapshots, h.snapshots_incomplete,
         count(p.free) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
         round(avg(p.free) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
         min(p.free) FILTER (WHERE p.data_source = 'REALTIME') AS free_min,
         max(p.free) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
         round(1 - avg(p.free) FILTER (WHERE p.data_source = 'REALTIME') / nullif(max(p.capacity), 0), 4) AS occupancy_avg,
         count(p.free) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
         round(avg(p.free) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg,
         count(p.free) FILTER (WHERE p.data_source = 'UNKNOWN')::int AS unknown_readings
  FROM efa.parking_snapshots p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  JOIN efa.snapshot_hours h ON h.source = s.source AND h.job_name = s.job_name AND h.kind = 'parking'
                           AND h.hour = date_trunc('hour', p.taken_at)
  GROUP BY s.source, s.job_name, h.hour, p.parking_key, h.snapshots, h.snapshots_incomplete;

CREATE OR REPLACE VIEW efa.parking_occupancy_weekday_hour AS
  SELECT s.source, s.job_name, p.parking_key,
         extract(isodow FROM p.taken_at)::int AS weekday,
         extract(hour FROM p.taken_at)::int AS hour_of_day,
         (array_agg(p.name ORDER BY p.taken_at DESC))[1] AS name,
         max(p.capacity) AS capacity,
         (count(DISTINCT p.taken_at::date) FILTER (WHERE p.data_source = 'REALTIME' AND p.free IS NOT NULL))::int AS days,
         count(p.free) FILTER (WHERE p.data_source = 'REALTIME')::int AS readings,
         round(avg(p.free) FILTER (WHERE p.data_source = 'REALTIME'), 2) AS free_avg,
         min(p.free) FILTER (WHERE p.data_source = 'REALTIME') AS free_min,
         max(p.free) FILTER (WHERE p.data_source = 'REALTIME') AS free_max,
         round(1 - avg(p.free) FILTER (WHERE p.data_source = 'REALTIME') / nullif(max(p.capacity), 0), 4) AS occupancy_avg,
         count(p.free) FILTER (WHERE p.data_source = 'PROFILE')::int AS profile_readings,
         round(avg(p.free) FILTER (WHERE p.data_source = 'PROFILE'), 2) AS profile_free_avg
  FROM efa.parking_snapshots p
  JOIN efa.snapshots s ON s.run_id = p.run_id AND s.kind = 'parking' AND s.status = 'complete'
  GROUP BY s.source, s.job_name, p.parking_key, extract(isodow FROM p.taken_at), extract(hour FROM p.taken_at);

COMMENT ON VIEW efa.parking_occupancy_hourly IS 'Occupancy per parking object and hour over the hour''s complete snapshots: measured free places (REALTIME figures only: mean, least, most) and the mean occupied share; profile figures (forecasts from a day curve) counted and averaged apart, never mixed in.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.readings IS 'Complete snapshots with a measured (REALTIME) free-places value for this object.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_avg IS 'Free places, mean of the measured (REALTIME) readings.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_min IS 'Fewest free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.free_max IS 'Most free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.occupancy_avg IS 'Occupied share of the measured readings, 1 - free_avg / capacity.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.profile_readings IS 'Figures of the hour whose source is PROFILE: forecasts from the object''s day curve, not measurements.';
COMMENT ON COLUMN efa.parking_occupancy_hourly.profile_free_avg IS 'Free places, mean of the PROFILE figures (a forecast; compare, never add to free_avg).';
COMMENT ON COLUMN efa.parking_occupancy_hourly.unknown_readings IS 'Figures of the hour whose source the answer did not name (UNKNOWN): counted in no mean.';
COMMENT ON VIEW efa.parking_occupancy_weekday_hour IS 'Occupancy per parking object by weekday (ISO, 1 = Monday) and hour of day over all complete snapshots kept: the typical week, from measured (REALTIME) figures; profile figures apart.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.days IS 'Days with measured readings in this slot.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.readings IS 'Measured (REALTIME) readings in this slot.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_avg IS 'Free places, mean of the measured readings.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_min IS 'Fewest free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.free_max IS 'Most free places in one measured reading.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.occupancy_avg IS 'Occupied share of the measured readings, 1 - free_avg / capacity.';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.profile_readings IS 'PROFILE figures in this slot (forecasts from a day curve).';
COMMENT ON COLUMN efa.parking_occupancy_weekday_hour.profile_free_avg IS 'Free places, mean of the PROFILE figures (a forecast, apart from the measurements).';

-- efa.current_parking: the data set of the published rapidJSON schema beside the json/legacy
-- fields, read in the order of src/snapshot/rows.ts parkingFigures. free_places is a measurement
-- only (REALTIME, or json/legacy realtime/freeSpaces); a PROFILE figure is profile_free_places.
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
  )
  SELECT f.fid, f.source, f.pin_key, f.id, f.name,
         coalesce(f.attrs ->> 'parkingObjectType', f.attrs ->> 'type', f.attrs ->> 'kind') AS kind,
         coalesce(CASE WHEN coalesce(f.attrs ->> 'capacity', f.attrs ->> 'totalSpaces') ~ '^[0-9]+$'
                       THEN coalesce(f.attrs ->> 'capacity', f.attrs ->> 'totalSpaces')::int END, f.space_capacity) AS capacity,
         CASE WHEN f.legacy_free ~ '^[0-9]+$' THEN f.legacy_free::int
              WHEN f.source_of_figure = 'REALTIME' THEN f.set_free END AS free_places,
         CASE WHEN f.legacy_free ~ '^[0-9]+$' OR (f.source_of_figure = 'REALTIME' AND f.set_free IS NOT NULL) THEN r.finished_at END AS free_places_at,
         f.attrs ->> 'charge' AS charge,
         ST_X(f.geom) AS lon, ST_Y(f.geom) AS lat, f.geom, f.changed_run,
         f.source_of_figure AS data_source,
         efa.parse_instant(f.data_set ->> 'measuredAt') AS measured_at,
         CASE WHEN f.source_of_figure = 'PROFILE' THEN f.set_free END AS profile_free_places
  FROM f
  LEFT JOIN efa.runs r ON r.run_id = f.changed_run;

COMMENT ON VIEW efa.current_parking IS 'Live parking objects with the parking fields of the answer as columns (the first of the names deployments use that is present; rapidJSON''s parkingDataSet of the published schema included). free_places is a measurement only (data_source REALTIME); a forecast from a day curve (PROFILE) is profile_free_places; as of the run that last changed the row.';
COMMENT ON COLUMN efa.current_parking.capacity IS 'Number of places, where the answer says (capacity, totalSpaces, or the sum of rapidJSON parkingSpaces[].capacity).';
COMMENT ON COLUMN efa.current_parking.free_places IS 'Free places as measured (data_source REALTIME: rapidJSON parkingDataSet.freePlaces with dataSource REALTIME, json/legacy realtime.free or freeSpaces); NULL for a forecast or an unknown source.';
COMMENT ON COLUMN efa.current_parking.free_places_at IS 'When the measured free places were read: the end of the run that stored them (measured_at says when the server measured them, where it does).';
COMMENT ON COLUMN efa.current_parking.data_source IS 'Where the free-places figure is from: REALTIME (measured; json/legacy realtime and freeSpaces count as REALTIME, servers send them only with parkObjInfoRealtime=1), PROFILE (a forecast from a day curve) or UNKNOWN (rapidJSON parkingDataSet without a known dataSource); NULL when the answer had no figure.';
COMMENT ON COLUMN efa.current_parking.measured_at IS 'When the figure was measured: rapidJSON parkingDataSet.measuredAt, whose zone the answer states (the published schema writes UTC, ...Z); NULL when absent or written without a zone (the text stays in attrs).';
COMMENT ON COLUMN efa.current_parking.profile_free_places IS 'Free places forecast from the object''s day curve (data_source PROFILE), apart from the measurement.';

-- Providers and areas also come from the published schema's OpArea answer (operatingAreas[]): the
-- comments say where each column comes from in both shapes.
COMMENT ON TABLE efa.sharing_providers IS 'Bike, car and scooter sharing providers from OpArea answers: providers[] (efa-api.md), or one per operator of rapidJSON operatingAreas[] (the published schema).';
COMMENT ON COLUMN efa.sharing_providers.provider_id IS 'OpArea providers[].id, or rapidJSON operatingAreas[].operator.id (as text).';
COMMENT ON COLUMN efa.sharing_providers.name IS 'OpArea providers[].name, or rapidJSON operatingAreas[].operator.name (of the operator''s first area; other spellings in attrs.otherNames).';
COMMENT ON COLUMN efa.sharing_providers.vehicle_type IS 'OpArea providers[].vehicleType, e.g. BIKE, CAR; for rapidJSON operatingAreas[] the products of the operator''s areas in capitals, comma-joined (BIKE,MOTORCYCLE); NULL when empty.';
COMMENT ON COLUMN efa.sharing_providers.attrs IS 'Every other field of the provider as received (JSON), areas excepted (efa.operating_areas); for rapidJSON operatingAreas[] the operator''s products, areaTypes, vehicleEngineTypes, vehicleTypes and sharingTypes over its areas.';
COMMENT ON TABLE efa.operating_areas IS 'Operating areas of sharing providers from OpArea answers (providers[].areas[], or rapidJSON operatingAreas[]; geometry with operatingZoneGeometry=1). area_key is the single-column key for QGIS/GDAL; (provider_id, area_id) is unique.';
COMMENT ON COLUMN efa.operating_areas.provider_id IS 'The owning provider (efa.sharing_providers): providers[].id, or rapidJSON operatingAreas[].operator.id.';
COMMENT ON COLUMN efa.operating_areas.area_id IS 'OpArea providers[].areas[].id, or rapidJSON operatingAreas[].id (as text).';
COMMENT ON COLUMN efa.operating_areas.name IS 'OpArea providers[].areas[].name, or rapidJSON operatingAreas[].name.';
COMMENT ON COLUMN efa.operating_areas.geom IS 'The area as a valid MultiPolygon, EPSG:4326: providers[].areas[].polygon ([lat, lon] points turned into lon/lat rings), or rapidJSON operatingAreas[].operatingZone (GeoJSON; every polygon and hole kept; its order in attrs.coordOrder); closed where the answer left rings open, made valid (ST_MakeValid). NULL when the answer carried no areal geometry. An unrepairable polygon goes to efa.rejects.';
COMMENT ON COLUMN efa.operating_areas.attrs IS 'Every other field of the area as received (JSON): for rapidJSON type, product, properties, the offered types and coverageArea as sent; ringsClosedByParser = true when a ring had to be closed; coordOrder (lonLat, latLon) and coordOrderBy (values, region, GeoJSON) for a GeoJSON zone; operatingZone and operatingZoneNotAreal when the zone was a point or a line.';
