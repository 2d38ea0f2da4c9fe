/**
 * Text from upstream (a stop's name, an error body's excerpt) as a terminal may be shown it: every
 * character that steers a terminal instead of being read is written as its escape. C0 controls
 * (ESC starts the sequences that clear the screen, set the window title or plant an OSC 8 link; BEL
 * ends them; CR lets a row overwrite the one before), DEL, C1 controls (U+009B is an 8-bit CSI), and
 * the bidirectional overrides, embeddings and isolates that reorder what follows them (U+202E turns
 * `txt.exe` around), plus the line and paragraph separators. Tab and line feed are escaped too: a
 * table cell or a one-line message must stay one line.
 *
 * The one sanitiser for what efa-sync writes to a terminal: tables (formatTable), doctor's report,
 * pretty log lines (util/log.ts) and the excerpt of a body in error messages (efa/excerpt.ts).
 */
const STEERING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeOf(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every terminal-steering character written as its escape (`\x1b`, `\r`, `\u202e`). */
export function terminalText(text: string): string {
  return text.replace(STEERING, escapeOf);
}

/**
 * A value's strings (and keys) as terminalText writes them, for the fields of a pretty log line. Only
 * plain objects and arrays are walked; depth is bounded by what a log field holds.
 */
export function terminalValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return terminalText(value);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => terminalValue(item, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [terminalText(key), terminalValue(inner, depth + 1)]));
}
