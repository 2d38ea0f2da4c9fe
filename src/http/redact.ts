import { redactText } from '../util/redact.js';

/** Kept for callers of the old name; the rules live in src/util/redact.ts. */
export { redactUrl } from '../util/redact.js';

/**
 * `text` with every non-trivial header value cut out, for runtime messages we did not write (undici
 * quotes offending header values). Very short values (e.g. "1") would shred the message while
 * protecting nothing secret, so they are left.
 */
export function scrubHeaderValues(text: string, headers: Readonly<Record<string, string>>): string {
  return redactText(
    text,
    Object.values(headers).filter((value) => value.length >= 4),
  );
}
