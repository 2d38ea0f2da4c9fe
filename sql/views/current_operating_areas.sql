-- after:
CREATE OR REPLACE VIEW efa.current_operating_areas AS
  SELECT a.fid, a.source, a.provider_id, p.name AS provider_name, p.vehicle_type, a.area_id, a.name,
         a.in_region, ST_X(ST_PointOnSurface(a.geom)) AS lon, ST_Y(ST_PointOnSurface(a.geom)) AS lat, a.geom
  FROM efa.operating_areas a
  LEFT JOIN efa.sharing_providers p ON p.source = a.source AND p.provider_id = a.provider_id
  WHERE a.deleted_at IS NULL AND a.geom IS NOT NULL;
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
