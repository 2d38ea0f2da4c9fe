-- after: efa.stops
-- The stops a notice affects, as efa.notice_lines gives its lines. AddInfo names them in the record
-- (rapidJSON infos[].affected.stops[].id, the json dialect's stops[]), which the notice keeps in
-- attrs.stops; a value that is no list, or an element that is no id, names no stop here. A stop is
-- matched by its id, else by its global id (a deployment may name a locally numbered stop by its DHID).
CREATE OR REPLACE VIEW efa.notice_stops AS
  SELECT n.source, n.notice_id, r.stop_ref, s.stop_id, s.pin_key
  FROM efa.notices n
  CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(n.attrs -> 'stops') = 'array' THEN n.attrs -> 'stops' ELSE '[]'::jsonb END) AS e(v)
  CROSS JOIN LATERAL (SELECT e.v #>> '{}' AS stop_ref) r
  LEFT JOIN LATERAL (
    SELECT st.stop_id, st.pin_key FROM efa.stops st
    WHERE st.source = n.source AND st.deleted_at IS NULL AND (st.stop_id = r.stop_ref OR st.global_id = r.stop_ref)
    ORDER BY st.stop_id = r.stop_ref DESC, st.pin_key
    LIMIT 1
  ) s ON true
  WHERE jsonb_typeof(e.v) IN ('string', 'number');
COMMENT ON VIEW efa.notice_stops IS 'The stops a notice affects: one row per notice and stop identifier in its attrs.stops (AddInfo rapidJSON infos[].affected.stops[].id, json stops[]), with the matching live stop of efa.stops (by stop_id, else by global_id). stop_id is NULL when no live stop matches. The stop-level counterpart of efa.notice_lines.';
COMMENT ON COLUMN efa.notice_stops.source IS 'The deployment (source) of the notice; stops are matched within it.';
COMMENT ON COLUMN efa.notice_stops.notice_id IS 'efa.notices.notice_id.';
COMMENT ON COLUMN efa.notice_stops.stop_ref IS 'One element of efa.notices.attrs.stops as sent (a stop id, local or global).';
COMMENT ON COLUMN efa.notice_stops.stop_id IS 'efa.stops.stop_id of the live stop whose stop_id, else whose global_id, equals stop_ref; NULL when none does.';
COMMENT ON COLUMN efa.notice_stops.pin_key IS 'efa.pins.pin_key of that stop; NULL when none matches.';
