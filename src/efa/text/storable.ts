import { setField } from '../parse/set-field.js';

/**
 * Text PostgreSQL can store, made so once, by the client right after a dialect's parser built an
 * answer's records (efa/client.ts parseBody), for every dialect and every relation, in columns and in `attrs` alike:
 * - U+0000 is dropped: neither text nor jsonb can hold it.
 * - A lone UTF-16 surrogate (a high half without its low half, or a low half alone) becomes U+FFFD,
 *   the replacement character. `JSON.parse` accepts `"\ud800"` and the XML reader a `&#xD800;`, so a
 *   server's UTF-16 truncation or a bad `\u` escape reaches efa-sync as such a string; PostgreSQL's
 *   json and jsonb refuse the escape JSON.stringify writes for it (one such name once failed a whole
 *   CoordInfo unit), while a text column stored U+FFFD for it already (UTF-8 has no lone surrogate).
 *   Replacing is what the text column did, and what every UTF-8 encoder does; the record stays.
 */

/**
 * Whether an answer's text may give a record an unstorable string. A JSON string holds U+0000 or a
 * lone surrogate only through an escape (`\u0000`, `\ud800`: JSON.parse refuses a raw control
 * character, and a decoded body has no lone surrogate, which every WHATWG decoder replaces); an XML
 * answer holds neither (saxes refuses `&#0;`, and the reader makes a reference to a surrogate one to
 * U+FFFD). So almost every answer is let through by one scan of its text (0.4 % of parsing it),
 * where walking every record cost a tenth of the parse; a valid pair written as escapes, or the
 * text `\\u0000`, only costs the walk.
 */
const ESCAPED_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;
export const mayHoldUnstorable = (answerText: string): boolean => ESCAPED_UNSTORABLE.test(answerText);

// isWellFormed and toWellFormed are Node 20+ (ES2024); the project's lib is ES2023.
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/** Whether one string holds a U+0000 or a lone surrogate. */
export const unstorableText = (text: string): boolean => text.includes('\u0000') || !(text as WellFormedString).isWellFormed();

/** The text with U+0000 dropped and every lone surrogate replaced by U+FFFD. */
export const storableText = (text: string): string =>
  unstorableText(text) ? (text.replaceAll('\u0000', '') as WellFormedString).toWellFormed() : text;

/** Whether a string anywhere in a parsed value (a key too) is not storable. Depth is bounded by the parser's limits. */
export function holdsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return unstorableText(value);
  if (Array.isArray(value)) return value.some(holdsUnstorable);
  if (value !== null && typeof value === 'object') {
    // for-in walks no entry array per object; a parsed value's prototype has no enumerable keys.
    const object = value as Record<string, unknown>;
    for (const key in object) if (unstorableText(key) || holdsUnstorable(object[key])) return true;
  }
  return false;
}

function copyStorable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(copyStorable);
  if (value === null || typeof value !== 'object') return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key in value as Record<string, unknown>) {
    if (Object.hasOwn(value, key)) setField(out, storableText(key), copyStorable((value as Record<string, unknown>)[key]));
  }
  return out;
}

/**
 * `value` with every string and key storable (storableText). Almost no record needs it: the value is
 * walked once and copied only when it must be (a copy per record was a twentieth of a large first
 * night's CPU), so a clean record is returned as it is. Only plain objects and arrays are copied.
 */
export function storable<T>(value: T): T {
  return holdsUnstorable(value) ? (copyStorable(value) as T) : value;
}
