-- efa-sync schema, version 26: the lake export (src/lake/, docs/lake.md) reads the superseded
-- versions one source and one UTC day of their end at a time (a version's day is the day it ended:
-- complete once that day is over). Without an index each such read scans the whole history table;
-- with it a day is a range scan, and listing the days there are reads the index only.
--
-- The index is one of every history table's declared indexes now (historyIndexes in
-- src/relations/history-sql.ts), made by the table sync with the table, or where it is missing; this
-- version stays, empty, so the versions that follow keep their numbers.
SELECT 1;
