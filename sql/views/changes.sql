-- after:
-- change_id: the set's id in the high 32 bits, the key's place in the set in the low ones, so it
-- increases in the order the changes were written, as before.
CREATE OR REPLACE VIEW efa.changes AS
  SELECT (c.set_id << 32) + k.n AS change_id, c.run_id, c.relation, k.key, c.op, c.detail, c.at, c.source
  FROM efa.change_sets c CROSS JOIN LATERAL unnest(c.keys) WITH ORDINALITY AS k(key, n);
COMMENT ON VIEW efa.changes IS 'Change log (efa.change_sets, one row per change): one row per insert, content update, revival or deletion of an entity row, with the run that made it. A run against an unchanged API writes none.';
COMMENT ON COLUMN efa.changes.change_id IS 'Surrogate key, increasing in the order the changes were written.';
COMMENT ON COLUMN efa.changes.run_id IS 'The run that made the change (efa.runs).';
COMMENT ON COLUMN efa.changes.relation IS 'Entity table name: pins, lines, stop_lines, notices, sharing_providers or operating_areas.';
COMMENT ON COLUMN efa.changes.key IS 'The row''s key in that table (stop_lines: stop_id || ''|'' || line_key).';
COMMENT ON COLUMN efa.changes.op IS 'insert, update (content changed, or revived) or delete (deleted_at / ended_at set).';
COMMENT ON COLUMN efa.changes.detail IS 'Why, where op alone does not say it: revived (an update that cleared deleted_at), ended (a notice no longer published); NULL otherwise.';
COMMENT ON COLUMN efa.changes.at IS 'When the change was written.';
COMMENT ON COLUMN efa.changes.source IS 'The source of the changed row (always the run''s).';
