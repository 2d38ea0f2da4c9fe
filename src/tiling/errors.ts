/** The region of a job cannot be tiled (empty, inverted or non-finite box, wrong geometry type). */
export class InvalidRegionError extends Error {
  override readonly name = 'InvalidRegionError';
}

/** A tiling option is out of range (non-positive max, fill outside (0, 1], and so on). */
export class InvalidTilingOptionError extends Error {
  override readonly name = 'InvalidTilingOptionError';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
  }
}
