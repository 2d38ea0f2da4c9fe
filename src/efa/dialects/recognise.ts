import type { Dialect } from '../dialect.js';
import { jsonDialect } from './json.js';
import { legacyDialect } from './legacy.js';
import { rapidJsonDialect } from './rapidjson.js';
import { xmlDialect } from './xml.js';

/**
 * The dialects efa-sync knows, most specific first: an XML answer is nothing else (the reader made it
 * an XmlBody), and the json shapes are the loosest, so they come last.
 */
export const KNOWN_DIALECTS: readonly Dialect[] = [xmlDialect, rapidJsonDialect, legacyDialect, jsonDialect];

/** The known dialect whose detector claims `body`, or undefined (an error object, an unknown shape). */
export function recogniseDialect(body: unknown): Dialect | undefined {
  return KNOWN_DIALECTS.find((dialect) => dialect.detect(body));
}

/**
 * The other dialect `body` is in, when `dialect` does not claim it and another known one does;
 * undefined otherwise. Only a positive claim counts: a body no detector knows (an error object, a
 * new shape) is left to the parser, whose ShapeMismatchError says what is missing.
 */
export function foreignDialectOf(dialect: Dialect, body: unknown): Dialect | undefined {
  if (dialect.detect(body)) return undefined;
  const other = recogniseDialect(body);
  return other !== undefined && other.name !== dialect.name ? other : undefined;
}
