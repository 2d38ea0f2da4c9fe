-- efa-sync schema, version 6: the comments of what versions 4 and 5 added (shown by psql \d+,
-- QGIS, and docs/schema.md, which is generated from them).

COMMENT ON COLUMN efa.runs.source IS 'The deployment the run''s job harvests (the job''s source, default its name). Every row the run wrote belongs to it.';
COMMENT ON COLUMN efa.runs.scope IS 'What the run looked at, recorded before it swept: its source, region, and per relation the pin types, MOT filters and the filters of each operation. The deletion predicates (efa.gone_<relation>) read only this.';
COMMENT ON COLUMN efa.runs.lease IS 'Fencing token of the process that holds the run: every commit checks it, so a process that lost its lock commits nothing more once another took the run over.';
COMMENT ON COLUMN efa.runs.meta IS 'Run metadata beside the row counts: dialect read, requests per operation, retries, units per status, rejects, failed/capped/incomplete units, deletions held by the mass-deletion guard, duration in seconds.';
COMMENT ON COLUMN efa.run_tiles.subject IS 'The object the unit is about, where it is one: the stop id of a ServingLines request.';

COMMENT ON COLUMN efa.pins.source IS 'The deployment (source) the object belongs to; pin_key is unique within it.';
COMMENT ON COLUMN efa.pins.fid IS 'Integer key of the row (for QGIS, GDAL, pg_featureserv, martin).';
COMMENT ON COLUMN efa.pins.global_id IS 'A stop''s global id (IFOPT / DHID, e.g. de:08111:6008) where the answer carries one (STOP_GLOBAL_ID, gid) or the id has that form; NULL otherwise.';
COMMENT ON COLUMN efa.lines.source IS 'The deployment (source) the line belongs to; line_key is unique within it.';
COMMENT ON COLUMN efa.lines.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.stop_lines.source IS 'The deployment (source) of the stop and the line.';
COMMENT ON COLUMN efa.stop_lines.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.stop_lines.pair_key IS 'stop_id|line_key: the pair''s key within its source, as efa.changes and efa.run_seen name it.';
COMMENT ON COLUMN efa.stop_lines.content_hash IS 'Constant: a pair has no content besides its key.';
COMMENT ON COLUMN efa.stop_lines.changed_run IS 'The run that last inserted or revived the pair.';
COMMENT ON COLUMN efa.notices.source IS 'The deployment (source) the notice belongs to; notice_id is unique within it.';
COMMENT ON COLUMN efa.notices.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.sharing_providers.source IS 'The deployment (source) that named the provider.';
COMMENT ON COLUMN efa.sharing_providers.fid IS 'Integer key of the row.';
COMMENT ON COLUMN efa.operating_areas.source IS 'The deployment (source) that named the area.';
COMMENT ON COLUMN efa.operating_areas.fid IS 'Integer key of the row (the single-column key for QGIS and GDAL).';
COMMENT ON COLUMN efa.operating_areas.in_region IS 'Whether the area touches the region of the job that stored it (some deployments answer OpArea nationwide; opArea.clipToRegion keeps only these). NULL without geometry.';
COMMENT ON COLUMN efa.run_seen.source IS 'The run''s source.';
COMMENT ON COLUMN efa.changes.source IS 'The source of the changed row (always the run''s).';
COMMENT ON COLUMN efa.rejects.source IS 'The source of the run that received the record.';
COMMENT ON COLUMN efa.rejects.unit IS 'The unit of work whose answer held the record (a CoordInfo tile id, stop:<id>, all).';

COMMENT ON COLUMN efa.stops.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.stops.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.stops.global_id IS 'Global stop id (IFOPT / DHID) where known; joins stops across sources (see efa.stop_places).';
COMMENT ON COLUMN efa.pois.source IS 'The deployment (source) of the POI.';
COMMENT ON COLUMN efa.pois.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.notice_lines.source IS 'The deployment (source) of the notice; lines are matched within it.';
COMMENT ON COLUMN efa.active_notices.source IS 'The deployment (source) of the notice.';
COMMENT ON COLUMN efa.active_notices.fid IS 'Integer key (efa.notices.fid).';
COMMENT ON COLUMN efa.changes_per_run.source IS 'The run''s source.';
COMMENT ON COLUMN efa.stop_summary.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.stop_summary.fid IS 'Integer key (efa.pins.fid), unique.';
COMMENT ON COLUMN efa.stop_summary.global_id IS 'Global stop id (IFOPT / DHID) where known.';
COMMENT ON COLUMN efa.tile_coverage.source IS 'The source of the job''s run.';

COMMENT ON VIEW efa.stop_places IS 'One physical stop across deployments: the live stops of every source that carry a global id (IFOPT / DHID), grouped by it. Stops without a global id are not joined (they stand alone in efa.stops).';
COMMENT ON COLUMN efa.stop_places.global_id IS 'The global stop id (IFOPT / DHID, e.g. de:08111:6008): the key.';
COMMENT ON COLUMN efa.stop_places.name IS 'The stop''s name as the first source (alphabetically) calls it.';
COMMENT ON COLUMN efa.stop_places.geom IS 'The centroid of the stop''s positions in every source (Point, EPSG:4326).';
COMMENT ON COLUMN efa.stop_places.sources IS 'The sources that know the stop, sorted.';
COMMENT ON COLUMN efa.stop_places.stop_ids IS 'The stop''s own ids per source: {"source": ["id", …]} (a source may list several stops under one global id).';
COMMENT ON COLUMN efa.stop_places.stop_count IS 'How many live stop rows the place joins.';

COMMENT ON VIEW efa.current_stops IS 'Live stops only (not deleted), with numeric lon/lat for BI pin maps (Metabase, Superset) and the integer key fid for QGIS, pg_featureserv and martin.';
COMMENT ON COLUMN efa.current_stops.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_stops.source IS 'The deployment (source) of the stop.';
COMMENT ON COLUMN efa.current_stops.stop_id IS 'The stop''s EFA id, as the deployment sent it.';
COMMENT ON COLUMN efa.current_stops.global_id IS 'Global stop id (IFOPT / DHID) where known.';
COMMENT ON COLUMN efa.current_stops.name IS 'Stop name.';
COMMENT ON COLUMN efa.current_stops.mot_types IS 'Means-of-transport ids of the stop.';
COMMENT ON COLUMN efa.current_stops.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_stops.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_stops.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_stops.changed_run IS 'The run that last changed the stop.';

COMMENT ON VIEW efa.current_pois IS 'Live points of interest only, with numeric lon/lat and the integer key fid.';
COMMENT ON COLUMN efa.current_pois.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_pois.source IS 'The deployment (source) of the POI.';
COMMENT ON COLUMN efa.current_pois.pin_key IS 'The POI''s key within its source.';
COMMENT ON COLUMN efa.current_pois.type IS 'POI_POINT or POI_AREA.';
COMMENT ON COLUMN efa.current_pois.id IS 'The POI''s EFA id, where it has one.';
COMMENT ON COLUMN efa.current_pois.name IS 'POI name.';
COMMENT ON COLUMN efa.current_pois.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_pois.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_pois.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_pois.attrs IS 'Every other field of the answer.';
COMMENT ON COLUMN efa.current_pois.changed_run IS 'The run that last changed the POI.';

COMMENT ON VIEW efa.current_parking IS 'Live parking objects with the parking fields of the answer as columns (the first of the names deployments use that is present). Realtime occupancy where the job sweeps parking with realtime; as of the run that last changed the row.';
COMMENT ON COLUMN efa.current_parking.fid IS 'Integer key (efa.pins.fid).';
COMMENT ON COLUMN efa.current_parking.source IS 'The deployment (source) of the object.';
COMMENT ON COLUMN efa.current_parking.pin_key IS 'The object''s key within its source.';
COMMENT ON COLUMN efa.current_parking.id IS 'The object''s EFA id.';
COMMENT ON COLUMN efa.current_parking.name IS 'Name of the car park or zone.';
COMMENT ON COLUMN efa.current_parking.kind IS 'Kind of parking object as sent (parkingObjectType bitmask value: 1 multi-storey, 2 car park, 4 single space, 8 zone, 32 charging point).';
COMMENT ON COLUMN efa.current_parking.capacity IS 'Number of places, where the answer says.';
COMMENT ON COLUMN efa.current_parking.free_places IS 'Free places (realtime), where the answer says.';
COMMENT ON COLUMN efa.current_parking.free_places_at IS 'When the free places were read: the end of the run that stored them.';
COMMENT ON COLUMN efa.current_parking.charge IS 'free or pay, where the answer says.';
COMMENT ON COLUMN efa.current_parking.lon IS 'Longitude (WGS84).';
COMMENT ON COLUMN efa.current_parking.lat IS 'Latitude (WGS84).';
COMMENT ON COLUMN efa.current_parking.geom IS 'Point, EPSG:4326.';
COMMENT ON COLUMN efa.current_parking.changed_run IS 'The run that last changed the object.';

COMMENT ON VIEW efa.current_operating_areas IS 'Live operating areas with geometry, their provider''s name and vehicle type, whether they touch the job''s region, a representative lon/lat (a point on the surface) and the integer key fid.';
COMMENT ON COLUMN efa.current_operating_areas.fid IS 'Integer key (efa.operating_areas.fid).';
COMMENT ON COLUMN efa.current_operating_areas.source IS 'The deployment (source) of the area.';
COMMENT ON COLUMN efa.current_operating_areas.provider_id IS 'Sharing provider id.';
COMMENT ON COLUMN efa.current_operating_areas.provider_name IS 'Sharing provider name.';
COMMENT ON COLUMN efa.current_operating_areas.vehicle_type IS 'The provider''s vehicle type (BIKE, CAR, …).';
COMMENT ON COLUMN efa.current_operating_areas.area_id IS 'Area id within the provider.';
COMMENT ON COLUMN efa.current_operating_areas.name IS 'Area name.';
COMMENT ON COLUMN efa.current_operating_areas.in_region IS 'Whether the area touches the job''s region.';
COMMENT ON COLUMN efa.current_operating_areas.lon IS 'Longitude of a point on the area''s surface.';
COMMENT ON COLUMN efa.current_operating_areas.lat IS 'Latitude of a point on the area''s surface.';
COMMENT ON COLUMN efa.current_operating_areas.geom IS 'MultiPolygon, EPSG:4326, valid.';

COMMENT ON FUNCTION efa.tile_owns(geometry, geometry, float8, float8) IS 'Half-open tile ownership, the one definition: min edges inclusive, max edges exclusive unless they are the region''s.';
COMMENT ON FUNCTION efa.gone_pins(bigint) IS 'Keys of live pins of the run''s source, in its scope (types, MOT filters, region), owned by a complete CoordInfo tile of the run, that the run did not see.';
