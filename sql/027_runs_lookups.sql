-- A snapshot job every 5 minutes adds ~105,000 runs a year: the lookups every run makes before its
-- first request must not scan them. The run to resume (status running, or stopped by a signal) is found
-- through a partial index that holds only unfinished runs; the night number counts a job's runs by id.
CREATE INDEX IF NOT EXISTS runs_unfinished_idx ON efa.runs (job_name, run_id DESC) WHERE status IN ('running', 'stopped');
CREATE INDEX IF NOT EXISTS runs_job_run_idx ON efa.runs (job_name, run_id);
