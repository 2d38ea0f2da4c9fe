import type { Operation } from './operations.js';
import type { Params } from './params.js';
import type { ParseContext, Parsed } from './parse/common.js';
import type { RecordsByOperation, ServerMessage } from './records.js';

export type { ParseContext, Parsed } from './parse/common.js';
export { ShapeMismatchError, RecordProblemError } from './parse/common.js';

/**
 * One parser per operation, each yielding that operation's normalised record kind. `context` says
 * what the request asked for, where a dialect needs it to name what came back (rapidJSON `gis`).
 */
export type DialectParsers = {
  readonly [K in Operation]: (body: unknown, context?: ParseContext) => Parsed<RecordsByOperation[K]>;
};

/**
 * A response dialect of EFA (the documented `JSON` shapes, legacy EFA JSON, rapidJSON, ...). A
 * profile owns everything that differs between deployments: the request parameters that select
 * it, and the parsers. Every profile yields the same records, so callers never branch on it.
 *
 * Parsers receive the decoded JSON body. They throw `ShapeMismatchError` when the answer as a whole is
 * not what the profile expects, and report individual unusable records as rejects.
 */
export interface Dialect {
  readonly name: string;
  /** Parameters sent with every request of `operation`, e.g. `outputFormat=JSON`. */
  extraParams(operation: Operation): Params;
  readonly parse: DialectParsers;
  /** Server notes (`message`, `systemMessages`) worth keeping in the run record. */
  messages(body: unknown): ServerMessage[];
  /**
   * Whether a body looks like this dialect: `auto` reads each answer in the dialect that claims it,
   * and a fixed dialect refuses an answer another dialect claims and it does not (EfaDialectMismatchError).
   */
  detect(body: unknown): boolean;
}
