-- efa-sync schema, version 31: the ledger's key arrays compress with lz4 where the server has it.
-- Every batch of a night writes its keys twice (efa.run_seen_sets, and efa.change_sets on a first
-- load), ~150 kB of text per 6,000 keys, always above the TOAST threshold. With the default pglz the
-- two compressions were ~12 of ~21 ms per statement (6,400 keys, PostgreSQL 15); with lz4, ~1 ms, at
-- much the same size. Only values written from now on use it; older ones read as before. A server
-- built without lz4 (PGlite is one) offers only pglz in default_toast_compression: it is left as is.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE efa.run_seen_sets ALTER COLUMN keys SET COMPRESSION lz4;
    ALTER TABLE efa.change_sets ALTER COLUMN keys SET COMPRESSION lz4;
  END IF;
END
$$;
