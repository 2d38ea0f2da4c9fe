-- after:
-- A key seen by two tiles of one run (a pin on their shared edge) appears once per tile.
CREATE OR REPLACE VIEW efa.run_seen AS
  SELECT s.run_id, s.relation, k.key, s.source
  FROM efa.run_seen_sets s CROSS JOIN LATERAL unnest(s.keys) AS k(key);
COMMENT ON VIEW efa.run_seen IS 'The keys each run saw, per relation (efa.run_seen_sets, one row per key): the basis of deletion detection (what a complete sweep did not see is marked deleted/ended) and of resume. A key two tiles of a run both answered appears twice.';
COMMENT ON COLUMN efa.run_seen.run_id IS 'The run (efa.runs).';
COMMENT ON COLUMN efa.run_seen.relation IS 'Entity table name: pins, lines, stop_lines, notices, sharing_providers or operating_areas.';
COMMENT ON COLUMN efa.run_seen.key IS 'The row''s key in that table (stop_lines: stop_id || ''|'' || line_key).';
COMMENT ON COLUMN efa.run_seen.source IS 'The run''s source.';
