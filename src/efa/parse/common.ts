import { z } from 'zod';
import { formatPath } from '../errors.js';
import type { Operation } from '../operations.js';
import type { Reject } from '../records.js';
import { cutAtDepth, fieldLimitProblem, MAX_RECORD_DEPTH, nestingDepth } from './limits.js';
import { setField } from './set-field.js';

export { setField } from './set-field.js';

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


function describe(path: readonly PropertyKey[], issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${formatPath([...path, ...issue.path])}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates each raw record; one bad record becomes a reject instead of failing the whole answer,
 * so a single broken stop does not cost the tile. `build` learns the record's path (`listPath`
 * plus its index), so a grid coordinate is reported where it is (`locations[12].coord`). A string
 * `listPath` is one key (`'stopFinder.points'` formats like `['stopFinder', 'points']`).
 *
 * The limits of `limits.ts` are checked here, for every dialect: a record nested deeper than
 * MAX_RECORD_DEPTH is a reject before anything walks it (its `raw` cut at that depth), and a
 * record whose id, name, title or text is longer than its bound is a reject after it is built. Its
 * text is made storable by the client, right after the parser (efa/text/storable.ts).
 *
 * A record whose coordinate cannot be WGS84 (ImplausibleCoordinatesError) is judged with the whole
 * answer (inServerGrid): where most of the answer's coordinates are so, the server answered in its
 * grid and the first of them is thrown (the run stops, exit 2); otherwise each is a reject.
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
  const implausible: { readonly error: ImplausibleCoordinatesError; readonly raw: unknown }[] = [];
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
      if (error instanceof ImplausibleCoordinatesError) {
        implausible.push({ error, raw });
        return;
      }
      if (!(error instanceof RecordProblemError)) throw error;
      const kept = error.cutRawAtDepth === undefined ? raw : cutAtDepth(raw, error.cutRawAtDepth);
      rejects.push({ operation, reason: `${formatPath([...path, ...error.path])}: ${error.problem}`, raw: kept });
    }
  });
  const [first] = implausible;
  if (first !== undefined) {
    const read = records.length + implausible.length;
    if (inServerGrid(implausible.length, read, implausible.every(({ error }) => error.gridShaped))) throw first.error;
    const share = `${implausible.length} of ${records.length + implausible.length} records of the answer`;
    for (const { error, raw } of implausible) rejects.push({ operation, reason: `${error.message}: a stray value, not the server's grid (${share})`, raw });
  }
  return { records, rejects };
}

/**
 * Fewest records with an implausible coordinate that can show an answer is in the server's grid.
 * A server that ignores `coordOutputFormat` writes every coordinate in its grid; one or two odd
 * values in a small answer cannot tell that from a broken record, so they cost their records alone.
 */
export const MIN_GRID_RECORDS = 3;

/**
 * Whether an answer is in the server's grid rather than WGS84, from its records that had a coordinate
 * read (`read`) and those of them whose coordinate could not be WGS84 (`implausible`): more than half
 * of them, and at least MIN_GRID_RECORDS; or, in a smaller answer, every one of them, each in the
 * shape of a grid (`allGridShaped`: a StopFinder's single hit at 4475708,812930 is the grid). A wrong
 * coordinate system is a property of the answer, not of one record: a lone implausible record (one
 * location at [91.5, 9.1], an operating area with one vertex of 1e308) is a reject, and the rest of
 * the answer is stored.
 */
export function inServerGrid(implausible: number, read: number, allGridShaped: boolean): boolean {
  if (implausible >= MIN_GRID_RECORDS) return implausible * 2 > read;
  return implausible === read && allGridShaped;
}

/**
 * A coordinate that cannot be WGS84 (a projected grid value such as 4475708,812930, or lat/lon out
 * of range). Thrown by parsers; parseEach judges it with the whole answer (inServerGrid): most of
 * an answer so means the deployment answered in its own grid because `coordOutputFormat` was not set
 * or ignored, and the client turns it into `EfaCoordinateFormatError`, which stops the run (exit 2):
 * storing such values as lon/lat would put every object in the wrong place. A stray one is a reject.
 */
export class ImplausibleCoordinatesError extends Error {
  constructor(
    readonly path: readonly PropertyKey[],
    readonly value: string,
    /**
     * The value has the shape of a projected grid (gridShaped), or the answer names its grid (an XML
     * `mapName` such as MRCV): one such record, alone in its answer, is enough to tell the grid.
     */
    readonly gridShaped = false,
  ) {
    super(`${formatPath(path)}: ${value} is not a WGS84 coordinate`);
    this.name = 'ImplausibleCoordinatesError';
  }
}

/**
 * Whether two numbers look like a position in a projected grid (metres: Gauss-Krüger 3513000,5404000,
 * EFA's MRCV 4475708,812930, UTM, MGA), not like degrees gone wrong: both beyond any degree, and below
 * 1e9 (a value of 1e308 or a lat of 91.5 is a broken value, not a grid).
 */
export function gridShaped(a: number, b: number): boolean {
  const metres = (v: number): boolean => Number.isFinite(v) && Math.abs(v) > 180 && Math.abs(v) < 1e9;
  return metres(a) && metres(b);
}

/** Checks a coordinate the dialect has read as lon/lat; throws ImplausibleCoordinatesError when it cannot be one. */
export function plausibleLonLat(lon: number, lat: number, path: readonly PropertyKey[]): { lon: number; lat: number } {
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
    throw new ImplausibleCoordinatesError(path, `${lon},${lat}`, gridShaped(lon, lat));
  }
  return { lon, lat };
}
