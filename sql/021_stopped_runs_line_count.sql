-- efa-sync schema, version 21: a run stopped by SIGTERM/SIGINT is recorded `stopped` (resumable like a
-- `running` one a crash left), and efa.stop_summary.line_count counts lines, not line-directions.
--
-- efa.lines holds one row per line and direction, so line_count was 22 at a stop 11 lines serve. A line
-- is now its public number within its means of transport (mot, number), over current stop-lines only.
-- A materialized view cannot be replaced: it is dropped and created again with the same columns, indexes
-- and comments, and filled (as REFRESH would). Readers keep SELECT through ALTER DEFAULT PRIVILEGES
-- (efa-sync grant-reader).

ALTER TABLE efa.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE efa.runs ADD CONSTRAINT runs_status_check CHECK (status IN ('running', 'succeeded', 'partial', 'failed', 'stopped'));
COMMENT ON COLUMN efa.runs.status IS 'running, succeeded, partial (some units failed after retries; their data was kept and nothing in them was marked deleted), failed, or stopped (ended by SIGTERM/SIGINT with its requests recorded; the next run of the job resumes it, as it resumes a run left running by a crash).';

DROP MATERIALIZED VIEW IF EXISTS efa.stop_summary;

