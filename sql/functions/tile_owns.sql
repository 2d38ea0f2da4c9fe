-- after:
-- Half-open tile ownership, the one definition (src/tiling/ownership.ts mirrors it, and a test
-- checks that both agree on edge points): min edges inclusive, max edges exclusive except where
-- the tile's max edge is the region's.
CREATE OR REPLACE FUNCTION efa.tile_owns(tile geometry, pt geometry, region_max_x float8, region_max_y float8)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ST_X(pt) >= ST_XMin(tile) AND ST_Y(pt) >= ST_YMin(tile)
     AND ST_X(pt) <= ST_XMax(tile) AND ST_Y(pt) <= ST_YMax(tile)
     AND (ST_X(pt) < ST_XMax(tile) OR ST_XMax(tile) = region_max_x)
     AND (ST_Y(pt) < ST_YMax(tile) OR ST_YMax(tile) = region_max_y)
$$;
COMMENT ON FUNCTION efa.tile_owns(geometry, geometry, float8, float8) IS 'Half-open tile ownership, the one definition: min edges inclusive, max edges exclusive unless they are the region''s.';
