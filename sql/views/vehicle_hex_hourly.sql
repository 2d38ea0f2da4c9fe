-- after:
CREATE OR REPLACE VIEW efa.vehicle_hex_hourly AS
  SELECT c.source, c.job_name, c.hour, c.kind, c.cell_i, c.cell_j,
         h.snapshots, h.snapshots_incomplete,
         round(c.vehicles_sum::numeric / h.snapshots, 2) AS vehicles_avg,
         round(c.available_sum::numeric / h.snapshots, 2) AS available_avg,
         g.geom
  FROM efa.vehicle_hex_hourly_cells c
  JOIN efa.hex_cells g ON g.cell_i = c.cell_i AND g.cell_j = c.cell_j
  JOIN efa.snapshot_hour_counts h ON h.source = c.source AND h.job_name = c.job_name AND h.kind = 'vehicles' AND h.hour = c.hour;
COMMENT ON VIEW efa.vehicle_hex_hourly IS 'Sharing vehicles per hexagonal cell (250 m edge in EPSG:3857, PostGIS ST_HexagonGrid), kind and hour, averaged over the hour''s complete snapshots: the heat map. Cells without vehicles have no row.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.source IS 'The deployment.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.vehicle_hex_hourly.kind IS 'Vehicle kind.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.cell_i IS 'Column of the hexagon in ST_HexagonGrid(250) over EPSG:3857.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.cell_j IS 'Row of the hexagon in ST_HexagonGrid(250) over EPSG:3857.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.snapshots IS 'Complete snapshots in the hour (the divisor).';
COMMENT ON COLUMN efa.vehicle_hex_hourly.snapshots_incomplete IS 'Snapshots of the hour left out because they had gaps.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.vehicles_avg IS 'Vehicles in the cell per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.available_avg IS 'Available vehicles in the cell per complete snapshot, on average.';
COMMENT ON COLUMN efa.vehicle_hex_hourly.geom IS 'The hexagon (Polygon, EPSG:4326).';
