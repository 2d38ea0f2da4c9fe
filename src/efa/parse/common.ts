import { z } from 'zod';
import { formatPath } from '../errors.js';
import type { Operation } from '../operations.js';
import type { Reject } from '../records.js';
import { cutAtDepth, fieldLimitProblem, MAX_RECORD_DEPTH, nestingDepth } from './limits.js';

/** What a dialect's parser returns: the records it could normalise and the ones it could not. */
export interface Parsed<T> {
  readonly records: T[];
  readonly rejects: Reject[];
}

/** What a parser may know about the request an answer belongs to. */
export interface ParseContext {
  /**
   * CoordInfo: the object types the request asked for (`type_<i>`). rapidJSON names some kinds
   * loosely (`gis` answers a GIS_POINT search), and the request tells which object type they are.
   */
  readonly requestedTypes?: readonly string[];
  /**
   * The deployment's IANA time zone: times an answer writes without an offset (legacy itdDate/itdTime,
   * rapidJSON validity windows) are wall-clock times there. Unknown: such times name no instant.
   */
  readonly timeZone?: string;
}

/**
 * The answer as a whole has the wrong shape (no list where one must be). Thrown by parsers; the
 * client turns it into an `EfaShapeError` carrying the operation, status and body excerpt.
 */
export class ShapeMismatchError extends Error {
  constructor(
    readonly path: readonly PropertyKey[],
    readonly problem: string,
  ) {
    super(`${formatPath(path)}: ${problem}`);
    this.name = 'ShapeMismatchError';
  }
}

/**
 * The answer is in a format efa-sync recognises but does not read (EFA's compact mobile XML): no
 * retry or other tile can help, so the run stops with the problem, which names what to use instead.
 */
export class UnreadFormatError extends ShapeMismatchError {
  constructor(problem: string) {
    super([], problem);
    this.name = 'UnreadFormatError';
  }
}

/** One record is unusable for a reason zod cannot express (e.g. a degenerate ring). */
export class RecordProblemError extends Error {
  constructor(
    readonly path: readonly PropertyKey[],
    readonly problem: string,
    /** The record is too large to keep whole in efa.rejects.raw: it is kept cut at this depth. */
    readonly cutRawAtDepth?: number,
  ) {
    super(`${formatPath(path)}: ${problem}`);
    this.name = 'RecordProblemError';
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The record list under `key`. A missing list is a shape error rather than "no hits": reading an
 * error object as an empty tile would let a sweep mark everything there deleted.
 */
export function envelopeList(body: unknown, key: string): unknown[] {
  if (!isObject(body)) throw new ShapeMismatchError([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const list = body[key];
  if (!Array.isArray(list)) {
    throw new ShapeMismatchError([key], list === undefined ? 'missing' : `expected an array, got ${typeof list}`);
  }
  return list;
}

/** Every field of `raw` the dialect did not map, for the record's `attrs`. */
export function restOf(raw: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const attrs: Record<string, unknown> = {};
  // for-in rather than Object.entries: no pair per field, and this runs on every record.
  for (const key in raw) {
    if (Object.hasOwn(raw, key) && !known.includes(key)) setField(attrs, key, raw[key]);
  }
  return attrs;
}

/**
 * Sets `key` on `target` as its own field, as JSON.parse does. A field an answer calls `__proto__` is
 * defined, not assigned: assigned, it would set the object's prototype.
 */
export function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function describe(path: readonly PropertyKey[], issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${formatPath([...path, ...issue.path])}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates each raw record; one bad record becomes a reject instead of failing the whole answer,
 * so a single broken stop does not cost the tile. `build` learns the record's path (`listPath`
 * plus its index), so a grid coordinate is reported where it is (`locations[12].coord`);
 * ImplausibleCoordinatesError passes through. A string `listPath` is one key (`'stopFinder.points'`
 * formats like `['stopFinder', 'points']`).
 *
 * The limits of `limits.ts` are checked here, for every dialect: a record nested deeper than
 * MAX_RECORD_DEPTH is a reject before anything walks it (its `raw` cut at that depth), and a
 * record whose id or name is longer than MAX_FIELD_CHARS is a reject after it is built.
 */
export function parseEach<S extends z.ZodType<Record<string, unknown>>, T>(
  operation: Operation,
  listPath: string | readonly PropertyKey[],
  items: readonly unknown[],
  schema: S,
  build: (wire: z.output<S>, raw: Record<string, unknown>, path: readonly PropertyKey[]) => T,
): Parsed<T> {
  const records: T[] = [];
  const rejects: Reject[] = [];
  const list = typeof listPath === 'string' ? [listPath] : listPath;
  items.forEach((raw, index) => {
    const path = [...list, index];
    const depth = nestingDepth(raw);
    if (depth > MAX_RECORD_DEPTH) {
      rejects.push({ operation, reason: `${formatPath(path)}: nested deeper than ${MAX_RECORD_DEPTH} levels`, raw: cutAtDepth(raw) });
      return;
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      rejects.push({ operation, reason: describe(path, result.error.issues), raw });
      return;
    }
    try {
      const record = build(result.data, isObject(raw) ? raw : {}, path);
      const tooLong = fieldLimitProblem(record);
      if (tooLong === undefined) records.push(record);
      else rejects.push({ operation, reason: `${formatPath(path)}: ${tooLong}`, raw });
    } catch (error) {
      if (!(error instanceof RecordProblemError)) throw error;
      const kept = error.cutRawAtDepth === undefined ? raw : cutAtDepth(raw, error.cutRawAtDepth);
      rejects.push({ operation, reason: `${formatPath([...path, ...error.path])}: ${error.problem}`, raw: kept });
    }
  });
  return { records, rejects };
}

/**
 * A coordinate that cannot be WGS84 (a projected grid value such as 4475708,812930, or lat/lon out
 * of range): the deployment answered in its own grid because `coordOutputFormat` was not set. Thrown
 * by parsers; the client turns it into `EfaCoordinateFormatError`, which stops the run (exit 2):
 * storing such values as lon/lat would put every object in the wrong place.
 */
export class ImplausibleCoordinatesError extends Error {
  constructor(
    readonly path: readonly PropertyKey[],
    readonly value: string,
  ) {
    super(`${formatPath(path)}: ${value} is not a WGS84 coordinate`);
    this.name = 'ImplausibleCoordinatesError';
  }
}

/** Checks a coordinate the dialect has read as lon/lat; throws ImplausibleCoordinatesError when it cannot be one. */
export function plausibleLonLat(lon: number, lat: number, path: readonly PropertyKey[]): { lon: number; lat: number } {
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
    throw new ImplausibleCoordinatesError(path, `${lon},${lat}`);
  }
  return { lon, lat };
}
