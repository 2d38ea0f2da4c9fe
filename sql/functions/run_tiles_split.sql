-- after:
-- efa.run_tiles.split repeated status = 'split', and the code wrote both: the database derives it now,
-- so the two cannot disagree (a column, not a generated one, so rows written as before still load).
CREATE OR REPLACE FUNCTION efa.run_tiles_split() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.split := NEW.status = 'split';
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER run_tiles_split BEFORE INSERT OR UPDATE OF status, split ON efa.run_tiles
  FOR EACH ROW EXECUTE FUNCTION efa.run_tiles_split();
