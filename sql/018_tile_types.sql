-- efa-sync schema, version 18: CoordInfo tiles that asked for some of the job's types only.
--
-- A night-one pilot (sweeps.coord.pilot, src/tiling/pilot.ts) sweeps the region in strata: the pilot
-- type with the types that lie elsewhere, then the types that lie where the pilot lies, each request
-- filtering for its stratum's types alone. One box can then be a unit of two strata (its tile id names
-- the stratum), and an answer proves absence only for the types it asked for.
--
-- 1. efa.run_tiles.types: the types a CoordInfo tile's request asked for; NULL = every type of the job
--    (every tile written before this version, and every tile of a run without a pilot).
ALTER TABLE efa.run_tiles ADD COLUMN types text[];
COMMENT ON COLUMN efa.run_tiles.types IS 'CoordInfo: the object types the tile''s request asked for (a stratum of a night swept by a pilot type); NULL = every type of the job''s coord sweep. A done tile proves absence only for these types.';

-- 3. Coverage per stratum: efa.tile_coverage shows each leaf tile's types, so a capped tile of one
--    stratum is not read as a gap of every type. The view of sql/005 with one column added.
DROP MATERIALIZED VIEW IF EXISTS efa.tile_coverage;
