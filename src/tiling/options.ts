import { InvalidTilingOptionError } from './errors.js';

export function checkPositiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new InvalidTilingOptionError(name, `must be a positive integer, got ${v}`);
  return v;
}

export function checkPositive(name: string, v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) throw new InvalidTilingOptionError(name, `must be a positive number, got ${v}`);
  return v;
}

export function checkFill(name: string, v: number): number {
  if (!(v > 0 && v <= 1)) throw new InvalidTilingOptionError(name, `must be in (0, 1], got ${v}`);
  return v;
}

/** The minimum tile a job starts from when it sets none (degrees). */
export const DEFAULT_MIN_TILE_DEG = 0.002;

/**
 * A job's minimum tile: the one it sets, a hard floor; or the default, which a still-capped tile's
 * own density may go below (splitTile's `followDensity`).
 */
export function minTileOf(cfg: { readonly minTileSizeDeg?: number | undefined }): { minTileSizeDeg: number; followDensity: boolean } {
  return cfg.minTileSizeDeg === undefined ? { minTileSizeDeg: DEFAULT_MIN_TILE_DEG, followDensity: true } : { minTileSizeDeg: cfg.minTileSizeDeg, followDensity: false };
}

/**
 * What a box sweep is told about its boxes, made once per sweep from the job's settings
 * (`tileBudgetOf`) and handed on as one value to whatever plans, asks and splits its tiles: how many
 * objects one request may return, the smallest tile, and whether a still-capped tile at that minimum
 * may follow its density below it.
 */
export interface TileBudget {
  readonly maxPerRequest: number;
  readonly minTileSizeDeg: number;
  readonly followDensity: boolean;
}

/** A sweep's tile budget from its job settings (`sweeps.coord`, `sweeps.vehicles`, …). */
export function tileBudgetOf(cfg: { readonly maxPerRequest: number; readonly minTileSizeDeg?: number | undefined }): TileBudget {
  return { maxPerRequest: cfg.maxPerRequest, ...minTileOf(cfg) };
}
