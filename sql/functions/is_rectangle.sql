-- after:
-- Whether a region is its own bounding box (a job's bbox region): then a point is inside it exactly
-- when it is inside the box (&&, boundary included, as ST_Intersects), which costs no geometry test.
CREATE OR REPLACE FUNCTION efa.is_rectangle(g geometry) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT g IS NOT NULL AND ST_NPoints(g) = 5 AND ST_Equals(g, ST_Envelope(g))
$$;
COMMENT ON FUNCTION efa.is_rectangle(geometry) IS 'Whether a polygon is its own bounding box (a bbox region): points inside it are then found with && alone.';
