-- efa-sync schema, version 32: a primary key on every table of schema efa (issue 45 point 9).
-- QGIS and GDAL/OGR open a table as an editable layer only with one. The three roll-ups of version 28
-- had only unique indexes, and those cannot be primary keys: provider_id and kind may be NULL (the
-- answers named none) and are unique as NULLS NOT DISTINCT. Each gets an identity column instead,
-- which no roll-up update touches: their updates stay HOT (sql/030), as an index on a column they set
-- (vehicle_latest.fid) would not allow. Adding the column rewrites each table once.
ALTER TABLE efa.vehicle_hourly ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE efa.vehicle_hex_hourly_cells ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
ALTER TABLE efa.vehicle_latest ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
COMMENT ON COLUMN efa.vehicle_hourly.id IS 'Row key for GIS tools (the row is unique by source, job_name, hour, provider_id and kind).';
COMMENT ON COLUMN efa.vehicle_hex_hourly_cells.id IS 'Row key for GIS tools (the row is unique by source, job_name, hour, kind, cell_i and cell_j).';
COMMENT ON COLUMN efa.vehicle_latest.id IS 'Row key for GIS tools (the row is unique by source, provider_id and vehicle_key; fid changes with each newer position).';
