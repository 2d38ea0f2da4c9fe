/**
 * The one vocabulary of a unit's outcome, for the tiles and units of a nightly run (efa.run_tiles)
 * and the tiles of a snapshot (efa.snapshot_tiles, which never records `pending`); sql/016 made the
 * two tables speak it. A unit is planned `pending`, then kept (`done`, `incomplete`, `capped`),
 * `split` (its children planned in the same commit) or `failed`.
 */
export type UnitStatus = 'pending' | 'done' | 'incomplete' | 'split' | 'capped' | 'failed';

/** The outcomes a unit's answer was stored with (`failed` and `split` store nothing of it). */
export type KeptStatus = Extract<UnitStatus, 'done' | 'incomplete' | 'capped'>;
