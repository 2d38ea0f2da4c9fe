-- after:
CREATE OR REPLACE VIEW efa.snapshot_hours AS
  SELECT source, job_name, kind, hour, snapshots, snapshots_incomplete
  FROM efa.snapshot_hour_counts;
COMMENT ON VIEW efa.snapshot_hours IS 'Snapshots per source, job, kind and hour: how many were complete (counted by the other views) and how many were not (left out: they have gaps).';
COMMENT ON COLUMN efa.snapshot_hours.source IS 'The deployment.';
COMMENT ON COLUMN efa.snapshot_hours.job_name IS 'The snapshot job.';
COMMENT ON COLUMN efa.snapshot_hours.kind IS 'vehicles or parking.';
COMMENT ON COLUMN efa.snapshot_hours.hour IS 'The hour (session time zone).';
COMMENT ON COLUMN efa.snapshot_hours.snapshots IS 'Complete snapshots in the hour.';
COMMENT ON COLUMN efa.snapshot_hours.snapshots_incomplete IS 'Partial or failed snapshots in the hour, not counted.';
