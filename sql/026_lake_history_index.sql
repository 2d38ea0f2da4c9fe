-- efa-sync schema, version 26: the lake export (src/lake/, docs/lake.md) reads the superseded
-- versions one source and one UTC day of their end at a time (a version's day is the day it ended:
-- complete once that day is over). Without an index each such read scans the whole history table;
-- with it a day is a range scan, and listing the days there are reads the index only.
CREATE INDEX IF NOT EXISTS pins_history_source_ended_idx ON efa.pins_history (source, upper(valid));
CREATE INDEX IF NOT EXISTS lines_history_source_ended_idx ON efa.lines_history (source, upper(valid));
CREATE INDEX IF NOT EXISTS stop_lines_history_source_ended_idx ON efa.stop_lines_history (source, upper(valid));
CREATE INDEX IF NOT EXISTS notices_history_source_ended_idx ON efa.notices_history (source, upper(valid));
CREATE INDEX IF NOT EXISTS sharing_providers_history_source_ended_idx ON efa.sharing_providers_history (source, upper(valid));
CREATE INDEX IF NOT EXISTS operating_areas_history_source_ended_idx ON efa.operating_areas_history (source, upper(valid));
