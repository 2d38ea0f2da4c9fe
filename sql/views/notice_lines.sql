-- after:
CREATE OR REPLACE VIEW efa.notice_lines AS
  SELECT n.source, n.notice_id, r.line_ref, l.line_key
  FROM efa.notices n
  CROSS JOIN LATERAL unnest(n.lines) AS r(line_ref)
  LEFT JOIN efa.lines l
    ON l.source = n.source AND l.deleted_at IS NULL
   AND (l.line_id = r.line_ref OR starts_with(l.line_id, r.line_ref || ':'));
COMMENT ON VIEW efa.notice_lines IS 'The logical link efa.notices.lines[] -> efa.lines: one row per notice and line identifier it names, with the matching line (line_id equal to the identifier or starting with it followed by '':''). line_key is NULL when no current line matches.';
COMMENT ON COLUMN efa.notice_lines.notice_id IS 'efa.notices.notice_id.';
COMMENT ON COLUMN efa.notice_lines.line_ref IS 'One element of AddInfo infos[].lines as stored in efa.notices.lines.';
COMMENT ON COLUMN efa.notice_lines.line_key IS 'efa.lines.line_key of a non-deleted line matching line_ref; NULL when none matches. One row per match.';
COMMENT ON COLUMN efa.notice_lines.source IS 'The deployment (source) of the notice; lines are matched within it.';
