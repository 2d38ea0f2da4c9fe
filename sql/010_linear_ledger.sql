-- Deletion predicates whose cost does not depend on the planner's guesses.
--
-- Why: since 007 a run's seen keys are arrays (one per written batch). The planner cannot know an
-- array's length (it guesses 10 elements), so `NOT EXISTS (... efa.run_seen ...)` over a run of
-- 200,000 pins was planned as a nested loop that unnested every seen set once per pin: 200,000 x
-- 200,000, more than 15 minutes in one statement, about 12 hours at a million. Fresh statistics do
-- not help: there are none for an array's elements.
--
-- The design: "live rows the run did not see" is a set difference, and it is written as one:
-- `live keys EXCEPT the run's seen keys`, and "seen before in the same scope" as `candidates
-- INTERSECT the earlier runs' keys`. PostgreSQL executes EXCEPT and INTERSECT as a sort or a hash
-- of both inputs, never as a loop of one input per row of the other, so whatever the planner
-- guesses about the arrays, each predicate reads every key once: linear (n log n for the sort).
-- The per-row work that remains (scope, region, tile ownership) runs only on what the difference
-- left, which on an ordinary night is the handful of objects really gone. The region's geometry and
-- the run's scope are read once per call (plpgsql variables), not parsed again for every row.
--
-- No second copy of the keys is written: the load keeps issue 9's arrays (one row per batch), and
-- the run's end reads them once per relation.

-- efa.seen_in_scope_before (sql/007), the scalar form, stays for analysts' queries (one key at a
-- time); the predicates below use the set form.

-- "Were this stop's lines ever fetched for this source" is asked per due stop; without run_id the
-- (run_id, operation, subject) index cannot answer it.
CREATE INDEX run_tiles_op_subject_idx ON efa.run_tiles (operation, subject) WHERE subject IS NOT NULL;
