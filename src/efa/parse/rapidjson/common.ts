import { z } from 'zod';
import type { Coord } from '../../records.js';
import { plausibleLonLat } from '../common.js';

/**
 * Helpers shared by the rapidJSON parsers. rapidJSON writes coordinates as `[lat, lon]` arrays
 * (verified in the TfNSW and NVBW samples and stated by the TfNSW OpenAPI: "the first value is the
 * latitude"), so ranges are not checked by zod here: an out-of-range pair must reach
 * `plausibleLonLat` and stop the run, not quietly become a reject.
 */

/** Two finite numbers; which is which is decided by `readLatLon`. */
export const numberPairSchema = z.tuple([z.number(), z.number()]);

/** A rapidJSON `coord` ([lat, lon]) as a checked WGS84 coordinate; throws ImplausibleCoordinatesError. */
export function readLatLon(pair: readonly number[], path: readonly PropertyKey[]): Coord {
  const [lat = Number.NaN, lon = Number.NaN] = pair;
  return plausibleLonLat(lon, lat, path);
}

export { TextRepairs } from '../../text/mojibake.js';

/** Sorted, de-duplicated means-of-transport IDs (`productClasses`, `modes`). */
export function sortedMots(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
