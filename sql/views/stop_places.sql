-- after:
-- One physical stop across deployments: the live stops that carry a global id, grouped by it.
CREATE OR REPLACE VIEW efa.stop_places AS
  WITH per_source AS (
    SELECT global_id, source, array_agg(id ORDER BY id) AS stop_ids, min(name) AS name,
           ST_Collect(geom) AS geoms, count(*) AS n
    FROM efa.pins
    WHERE type = 'STOP' AND global_id IS NOT NULL AND deleted_at IS NULL
    GROUP BY global_id, source
  )
  SELECT global_id,
         (array_agg(name ORDER BY source))[1] AS name,
         ST_Centroid(ST_Collect(geoms))::geometry(Point, 4326) AS geom,
         array_agg(source ORDER BY source) AS sources,
         jsonb_object_agg(source, to_jsonb(stop_ids)) AS stop_ids,
         sum(n)::int AS stop_count
  FROM per_source
  GROUP BY global_id;
COMMENT ON VIEW efa.stop_places IS 'One physical stop across deployments: the live stops of every source that carry a global id (IFOPT / DHID), grouped by it. Stops without a global id are not joined (they stand alone in efa.stops).';
COMMENT ON COLUMN efa.stop_places.global_id IS 'The global stop id (IFOPT / DHID, e.g. de:08111:6008): the key.';
COMMENT ON COLUMN efa.stop_places.name IS 'The stop''s name as the first source (alphabetically) calls it.';
COMMENT ON COLUMN efa.stop_places.geom IS 'The centroid of the stop''s positions in every source (Point, EPSG:4326).';
COMMENT ON COLUMN efa.stop_places.sources IS 'The sources that know the stop, sorted.';
COMMENT ON COLUMN efa.stop_places.stop_ids IS 'The stop''s own ids per source: {"source": ["id", …]} (a source may list several stops under one global id).';
COMMENT ON COLUMN efa.stop_places.stop_count IS 'How many live stop rows the place joins.';
