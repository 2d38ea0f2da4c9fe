-- after:
CREATE OR REPLACE FUNCTION efa.runs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'efa.runs is append-only: the first_run and changed_run of every relation, and its history, name these runs'
    USING HINT = 'To start a warehouse afresh, drop schema efa (DROP SCHEMA efa CASCADE) and run efa-sync migrate.';
END $$;
CREATE OR REPLACE TRIGGER runs_append_only BEFORE DELETE ON efa.runs FOR EACH ROW EXECUTE FUNCTION efa.runs_append_only();
CREATE OR REPLACE TRIGGER runs_no_truncate BEFORE TRUNCATE ON efa.runs FOR EACH STATEMENT EXECUTE FUNCTION efa.runs_append_only();
COMMENT ON FUNCTION efa.runs_append_only() IS 'Refuses DELETE and TRUNCATE on efa.runs: every relation''s first_run and changed_run name a run (no foreign key checks them per row since schema version 17).';
