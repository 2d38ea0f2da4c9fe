-- after:
CREATE OR REPLACE VIEW efa.changes_per_run AS
  SELECT c.run_id, r.job_name, r.status, r.started_at, r.finished_at, c.relation,
         coalesce(sum(cardinality(c.keys)) FILTER (WHERE c.op = 'insert'), 0)::int AS inserted,
         coalesce(sum(cardinality(c.keys)) FILTER (WHERE c.op = 'update'), 0)::int AS updated,
         coalesce(sum(cardinality(c.keys)) FILTER (WHERE c.op = 'delete'), 0)::int AS deleted,
         coalesce(sum(cardinality(c.keys)) FILTER (WHERE c.detail = 'revived'), 0)::int AS revived,
         sum(cardinality(c.keys))::int AS total,
         r.source
  FROM efa.change_sets c
  JOIN efa.runs r ON r.run_id = c.run_id
  GROUP BY c.run_id, r.job_name, r.status, r.started_at, r.finished_at, c.relation, r.source;
COMMENT ON VIEW efa.changes_per_run IS 'efa.changes counted per run and relation: what each run inserted, updated, revived and deleted.';
COMMENT ON COLUMN efa.changes_per_run.run_id IS 'The run (efa.runs).';
COMMENT ON COLUMN efa.changes_per_run.job_name IS 'efa.runs.job_name of the run.';
COMMENT ON COLUMN efa.changes_per_run.status IS 'efa.runs.status of the run.';
COMMENT ON COLUMN efa.changes_per_run.started_at IS 'efa.runs.started_at of the run.';
COMMENT ON COLUMN efa.changes_per_run.finished_at IS 'efa.runs.finished_at of the run.';
COMMENT ON COLUMN efa.changes_per_run.relation IS 'Entity table name (efa.changes.relation).';
COMMENT ON COLUMN efa.changes_per_run.inserted IS 'Rows inserted (op = insert).';
COMMENT ON COLUMN efa.changes_per_run.updated IS 'Rows updated (op = update), revivals included.';
COMMENT ON COLUMN efa.changes_per_run.deleted IS 'Rows marked deleted or ended (op = delete).';
COMMENT ON COLUMN efa.changes_per_run.revived IS 'Of the updates, rows that came back after being marked deleted (detail = revived).';
COMMENT ON COLUMN efa.changes_per_run.total IS 'All changes of the run in the relation.';
COMMENT ON COLUMN efa.changes_per_run.source IS 'The run''s source.';
