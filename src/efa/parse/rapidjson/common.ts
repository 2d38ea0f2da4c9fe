import { z } from 'zod';
import { formatPath } from '../../errors.js';
import type { Operation } from '../../operations.js';
import type { Coord, Reject } from '../../records.js';
import { repairMojibake } from '../../text/mojibake.js';
import { isObject, plausibleLonLat, RecordProblem, ShapeMismatch, type Parsed } from '../common.js';

/**
 * Helpers shared by the rapidJSON parsers. rapidJSON writes coordinates as `[lat, lon]` arrays
 * (verified in the TfNSW and NVBW samples and stated by the TfNSW OpenAPI: "the first value is the
 * latitude"), so ranges are not checked by zod here: an out-of-range pair must reach
 * `plausibleLonLat` and stop the run, not quietly become a reject.
 */

/** Two finite numbers; which is which is decided by `readLatLon`. */
export const numberPairSchema = z.tuple([z.number(), z.number()]);

/** A rapidJSON `coord` ([lat, lon]) as a checked WGS84 coordinate; throws ImplausibleCoordinates. */
export function readLatLon(pair: readonly number[], path: readonly PropertyKey[]): Coord {
  const [lat = Number.NaN, lon = Number.NaN] = pair;
  return plausibleLonLat(lon, lat, path);
}

/** Counts the mojibake repairs of one record; the count goes to `attrs._mojibakeRepaired`. */
export class TextRepairs {
  private count = 0;

  text(value: string): string {
    const result = repairMojibake(value);
    if (result.repaired) this.count += 1;
    return result.text;
  }

  attrs(): Record<string, unknown> {
    return this.count === 0 ? {} : { _mojibakeRepaired: this.count };
  }
}

/** The array at `body[key]`; a missing list is a shape error (see envelopeList), never "no hits". */
export function rapidList(body: unknown, key: string): unknown[] {
  if (!isObject(body)) throw new ShapeMismatch([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const list = body[key];
  if (!Array.isArray(list)) {
    throw new ShapeMismatch([key], list === undefined ? 'missing' : `expected an array, got ${typeof list}`);
  }
  return list;
}

function describe(path: readonly PropertyKey[], issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${formatPath([...path, ...issue.path])}: ${issue.message}`)
    .join('; ');
}

/**
 * Like `parseEach`, but `build` learns the record's path, so a grid coordinate is reported where it
 * is (`locations[12].coord`). Bad records become rejects; ImplausibleCoordinates passes through.
 */
export function parseRecords<S extends z.ZodType<Record<string, unknown>>, T>(
  operation: Operation,
  listPath: readonly PropertyKey[],
  items: readonly unknown[],
  schema: S,
  build: (wire: z.output<S>, raw: Record<string, unknown>, path: readonly PropertyKey[]) => T,
): Parsed<T> {
  const records: T[] = [];
  const rejects: Reject[] = [];
  items.forEach((raw, index) => {
    const path = [...listPath, index];
    const result = schema.safeParse(raw);
    if (!result.success) {
      rejects.push({ operation, reason: describe(path, result.error.issues), raw });
      return;
    }
    try {
      records.push(build(result.data, isObject(raw) ? raw : {}, path));
    } catch (error) {
      if (!(error instanceof RecordProblem)) throw error;
      rejects.push({ operation, reason: `${formatPath([...path, ...error.path])}: ${error.problem}`, raw });
    }
  });
  return { records, rejects };
}

/** Sorted, de-duplicated means-of-transport IDs (`productClasses`, `modes`). */
export function sortedMots(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
