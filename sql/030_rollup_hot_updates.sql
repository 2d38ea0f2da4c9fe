-- efa-sync schema, version 30: the roll-ups a snapshot updates stay cheap to update.
-- Every snapshot adds to the rows of its hour (12 updates a row per hour at a 5-minute cadence) and
-- moves every vehicle's row in efa.vehicle_latest. On full pages each update wrote a new row version
-- elsewhere and a new entry in every index of the table: 4,200 hexagon cells took ~105 ms and 5,000
-- latest positions ~100 ms of a ~350 ms snapshot. With room left on each page and no index on a column
-- that changes, the updates are heap-only (HOT): ~48 and ~30 ms, and they no longer leave index entries
-- behind for vacuum.
ALTER TABLE efa.snapshot_hour_counts SET (fillfactor = 50);
ALTER TABLE efa.vehicle_hourly SET (fillfactor = 50);
ALTER TABLE efa.vehicle_hex_hourly_cells SET (fillfactor = 50);
ALTER TABLE efa.parking_hourly SET (fillfactor = 50);
ALTER TABLE efa.vehicle_latest SET (fillfactor = 50);
-- taken_at changes at every update, so an index on it made none of them heap-only. Only retention read
-- it (once a day, to delete positions older than the raw series kept): a scan of this table is cheap.
DROP INDEX IF EXISTS efa.vehicle_latest_taken_idx;
