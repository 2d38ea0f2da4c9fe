-- after: efa.notice_lines
CREATE OR REPLACE VIEW efa.active_notices AS
  SELECT n.notice_id, n.type, n.severity, n.title, n.text, n.valid_from, n.valid_to, n.lines,
         coalesce(m.line_keys, '{}'::text[]) AS line_keys,
         coalesce(m.line_names, '{}'::text[]) AS line_names,
         n.attrs, n.first_run, n.changed_run, n.source, n.fid
  FROM efa.notices n
  LEFT JOIN LATERAL (
    SELECT array_agg(DISTINCT l.line_key ORDER BY l.line_key) AS line_keys,
           array_agg(DISTINCT l.name ORDER BY l.name) AS line_names
    FROM efa.notice_lines nl JOIN efa.lines l ON l.source = nl.source AND l.line_key = nl.line_key
    WHERE nl.source = n.source AND nl.notice_id = n.notice_id
  ) m ON true
  WHERE n.ended_at IS NULL
    AND (n.valid_from IS NULL OR n.valid_from <= current_date)
    AND (n.valid_to IS NULL OR n.valid_to >= current_date);
COMMENT ON VIEW efa.active_notices IS 'Notices in force today: not ended (ended_at IS NULL) and valid_from <= current_date <= valid_to (a missing bound is open), one row per notice, with the lines it names resolved against efa.lines.';
COMMENT ON COLUMN efa.active_notices.notice_id IS 'AddInfo infos[].id.';
COMMENT ON COLUMN efa.active_notices.type IS 'AddInfo infos[].type.';
COMMENT ON COLUMN efa.active_notices.severity IS 'AddInfo infos[].severity.';
COMMENT ON COLUMN efa.active_notices.title IS 'AddInfo infos[].title.';
COMMENT ON COLUMN efa.active_notices.text IS 'AddInfo infos[].text.';
COMMENT ON COLUMN efa.active_notices.valid_from IS 'AddInfo infos[].validFrom; NULL = open.';
COMMENT ON COLUMN efa.active_notices.valid_to IS 'AddInfo infos[].validTo, inclusive; NULL = open.';
COMMENT ON COLUMN efa.active_notices.lines IS 'AddInfo infos[].lines: line identifiers as received.';
COMMENT ON COLUMN efa.active_notices.line_keys IS 'efa.lines.line_key of the current lines matching those identifiers, sorted; empty when none matches.';
COMMENT ON COLUMN efa.active_notices.line_names IS 'efa.lines.name of those lines, sorted and distinct; empty when none matches.';
COMMENT ON COLUMN efa.active_notices.attrs IS 'Every other field of the notice as received (JSON).';
COMMENT ON COLUMN efa.active_notices.first_run IS 'The run that first stored the notice.';
COMMENT ON COLUMN efa.active_notices.changed_run IS 'The last run that changed the notice''s content.';
COMMENT ON COLUMN efa.active_notices.source IS 'The deployment (source) of the notice.';
COMMENT ON COLUMN efa.active_notices.fid IS 'Integer key (efa.notices.fid).';
