-- efa-sync schema, version 29: views and functions are definitions, not history.
--
-- Each view, function and trigger is one file (sql/views/<name>.sql, sql/functions/<name>.sql) with its
-- current definition; migrate() re-applies a file whose checksum differs from the one recorded here, and
-- the definitions that read it, after the numbered migrations (src/db/definitions.ts). The numbered
-- migrations keep only what changes tables and data.
CREATE TABLE efa.schema_definitions (
  name       text PRIMARY KEY,
  checksum   text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE efa.schema_definitions IS 'The views, functions and triggers applied from the definition files of efa-sync (sql/views, sql/functions), with the checksum of each as applied: a file whose checksum differs is applied again by the next migrate.';
COMMENT ON COLUMN efa.schema_definitions.name IS 'The object, schema-qualified (efa.stops).';
COMMENT ON COLUMN efa.schema_definitions.checksum IS 'SHA-256 (hex) of the definition file as applied.';
COMMENT ON COLUMN efa.schema_definitions.applied_at IS 'When it was last applied.';
