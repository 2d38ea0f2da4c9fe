-- efa-sync schema, version 11: where a parking figure comes from, and sharing vehicles at stations.
-- The interface's published rapidJSON schema gives each parking object's figures a data source:
-- REALTIME (measured), PROFILE (read off a day curve: a forecast) or UNKNOWN, and the time they
-- were measured. Until now nothing told them apart and the occupancy views averaged forecasts as
-- if they were readings. Now the snapshots and efa.current_parking carry the source and time, and
-- the views count only REALTIME figures as measurements, with profile figures in columns of their own.

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
