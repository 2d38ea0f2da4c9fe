-- after:
-- Adds one stored snapshot to the roll-ups, once (rolled_up), in the caller's transaction.
-- No JIT: the hexagon grid's function scan is costed at ~50,000 per vehicle, so every snapshot crossed
-- jit_above_cost and compiled its plan again (~20 ms, at each call, for statements that run in ~60 ms).
CREATE OR REPLACE FUNCTION efa.rollup_snapshot(p_run bigint, p_kind text) RETURNS void LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  s efa.snapshots%ROWTYPE;
  hr timestamptz;
BEGIN
  SELECT * INTO s FROM efa.snapshots WHERE run_id = p_run AND kind = p_kind AND NOT rolled_up FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  hr := date_trunc('hour', s.taken_at, 'UTC');
  INSERT INTO efa.snapshot_hour_counts AS c (source, job_name, kind, hour, snapshots, snapshots_incomplete)
  VALUES (s.source, s.job_name, s.kind, hr, (s.status = 'complete')::int, (s.status <> 'complete')::int)
  ON CONFLICT (source, job_name, kind, hour) DO UPDATE
    SET snapshots = c.snapshots + excluded.snapshots, snapshots_incomplete = c.snapshots_incomplete + excluded.snapshots_incomplete;

  IF s.kind = 'vehicles' THEN
    -- Every stored snapshot moves the latest positions (as the former view did, whatever its status).
    INSERT INTO efa.vehicle_latest AS l (fid, source, vehicle_key, provider_id, area_id, kind, engine, location_type,
                                         charge_percent, fuel_percent, available, taken_at, run_id, geom)
    SELECT DISTINCT ON (v.provider_id, v.vehicle_key)
           v.fid, v.source, v.vehicle_key, v.provider_id, v.area_id, v.kind, v.engine, v.location_type,
           v.charge_percent, v.fuel_percent, v.available, v.taken_at, v.run_id, v.geom
    FROM efa.vehicle_snapshots v
    WHERE v.taken_at = s.taken_at AND v.run_id = p_run
    ORDER BY v.provider_id, v.vehicle_key, v.fid DESC
    ON CONFLICT (source, provider_id, vehicle_key) DO UPDATE
      SET fid = excluded.fid, area_id = excluded.area_id, kind = excluded.kind, engine = excluded.engine,
          location_type = excluded.location_type, charge_percent = excluded.charge_percent,
          fuel_percent = excluded.fuel_percent, available = excluded.available, taken_at = excluded.taken_at,
          run_id = excluded.run_id, geom = excluded.geom
      WHERE l.taken_at <= excluded.taken_at;
  END IF;

  IF s.status = 'complete' AND s.kind = 'vehicles' THEN
    INSERT INTO efa.vehicle_hourly AS h (source, job_name, hour, provider_id, kind, snapshots, vehicles_sum, available_sum, available_min, available_max)
    SELECT s.source, s.job_name, hr, v.provider_id, v.kind, 1, count(*),
           count(*) FILTER (WHERE v.available IS NOT FALSE), count(*) FILTER (WHERE v.available IS NOT FALSE),
           count(*) FILTER (WHERE v.available IS NOT FALSE)
    FROM efa.vehicle_snapshots v
    WHERE v.taken_at = s.taken_at AND v.run_id = p_run
    GROUP BY v.provider_id, v.kind
    ON CONFLICT (source, job_name, hour, provider_id, kind) DO UPDATE
      SET snapshots = h.snapshots + 1, vehicles_sum = h.vehicles_sum + excluded.vehicles_sum,
          available_sum = h.available_sum + excluded.available_sum,
          available_min = least(h.available_min, excluded.available_min),
          available_max = greatest(h.available_max, excluded.available_max);

    -- A vehicle on a hexagon's edge counts in one cell (the lowest i, j), as before. The cells are
    -- computed once: the hexagons new to efa.hex_cells come from them, not from re-reading the hour.
    WITH cells AS (
      SELECT v.kind, c.i, c.j, count(*) AS vehicles, count(*) FILTER (WHERE v.available IS NOT FALSE) AS available
      FROM efa.vehicle_snapshots v
      CROSS JOIN LATERAL (
        SELECT g.i, g.j FROM ST_HexagonGrid(250, ST_Transform(v.geom, 3857)) g
        WHERE ST_Intersects(g.geom, ST_Transform(v.geom, 3857)) ORDER BY g.i, g.j LIMIT 1
      ) c
      WHERE v.taken_at = s.taken_at AND v.run_id = p_run
      GROUP BY v.kind, c.i, c.j
    ), counted AS (
      INSERT INTO efa.vehicle_hex_hourly_cells AS h (source, job_name, hour, kind, cell_i, cell_j, vehicles_sum, available_sum)
      SELECT s.source, s.job_name, hr, x.kind, x.i, x.j, x.vehicles, x.available FROM cells x
      ON CONFLICT (source, job_name, hour, kind, cell_i, cell_j) DO UPDATE
        SET vehicles_sum = h.vehicles_sum + excluded.vehicles_sum, available_sum = h.available_sum + excluded.available_sum
    )
    INSERT INTO efa.hex_cells (cell_i, cell_j, geom)
    SELECT DISTINCT x.i, x.j, ST_Transform(ST_SetSRID(ST_Hexagon(250, x.i, x.j), 3857), 4326)
    FROM cells x
    WHERE NOT EXISTS (SELECT 1 FROM efa.hex_cells h WHERE h.cell_i = x.i AND h.cell_j = x.j)
    ON CONFLICT DO NOTHING;
  END IF;

  IF s.status = 'complete' AND s.kind = 'parking' THEN
    -- A figure outside [0, capacity] is no reading (sql/019): counted apart, never averaged.
    INSERT INTO efa.parking_hourly AS h (source, job_name, hour, parking_key, name, name_at, capacity, readings, free_sum,
                                         free_min, free_max, profile_readings, profile_free_sum, unknown_readings,
                                         occupancy_sum, occupancy_readings, readings_impossible)
    SELECT s.source, s.job_name, hr, p.parking_key, (array_agg(p.name))[1], s.taken_at, max(p.capacity_ok),
           count(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'),
           coalesce(sum(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), 0),
           min(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'), max(p.free_ok) FILTER (WHERE p.data_source = 'REALTIME'),
           count(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'),
           coalesce(sum(p.free_ok) FILTER (WHERE p.data_source = 'PROFILE'), 0),
           count(p.free_ok) FILTER (WHERE p.data_source = 'UNKNOWN'),
           coalesce(sum(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'), 0),
           count(1 - p.free_ok::numeric / nullif(p.capacity_ok, 0)) FILTER (WHERE p.data_source = 'REALTIME'),
           count(*) FILTER (WHERE p.free IS NOT NULL AND p.free_ok IS NULL)
    FROM (
      SELECT x.*,
             CASE WHEN x.capacity >= 0 THEN x.capacity END AS capacity_ok,
             CASE WHEN x.free >= 0 AND (x.capacity IS NULL OR x.free <= x.capacity) AND coalesce(x.capacity, 0) >= 0 THEN x.free END AS free_ok
      FROM efa.parking_snapshots x
      WHERE x.taken_at = s.taken_at AND x.run_id = p_run
    ) p
    GROUP BY p.parking_key
    ON CONFLICT (source, job_name, hour, parking_key) DO UPDATE
      SET name = CASE WHEN excluded.name_at >= h.name_at THEN excluded.name ELSE h.name END,
          name_at = greatest(h.name_at, excluded.name_at),
          capacity = greatest(h.capacity, excluded.capacity),
          readings = h.readings + excluded.readings,
          free_sum = h.free_sum + excluded.free_sum,
          free_min = least(h.free_min, excluded.free_min),
          free_max = greatest(h.free_max, excluded.free_max),
          profile_readings = h.profile_readings + excluded.profile_readings,
          profile_free_sum = h.profile_free_sum + excluded.profile_free_sum,
          unknown_readings = h.unknown_readings + excluded.unknown_readings,
          occupancy_sum = h.occupancy_sum + excluded.occupancy_sum,
          occupancy_readings = h.occupancy_readings + excluded.occupancy_readings,
          readings_impossible = h.readings_impossible + excluded.readings_impossible;
  END IF;

  UPDATE efa.snapshots SET rolled_up = true WHERE run_id = p_run AND kind = p_kind;
END $$;
COMMENT ON FUNCTION efa.rollup_snapshot(bigint, text) IS 'Adds one stored snapshot to the hourly roll-ups and efa.vehicle_latest, once: the snapshot writer calls it in the transaction that stores the snapshot.';
