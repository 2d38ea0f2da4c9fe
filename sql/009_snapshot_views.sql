-- efa-sync schema, version 9: views over the snapshot time series for dashboards.
-- Only complete snapshots (efa.snapshots.status = 'complete') count: a snapshot with a failed or
-- capped tile has a gap, and a gap must never read as "no vehicles there" or "all places free".
-- Each view says how many snapshots of the hour it counted and how many it left out.
-- Hours and weekdays are those of the session's TimeZone (SET TimeZone = 'Europe/Berlin').

