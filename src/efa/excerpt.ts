import { redactText } from '../util/redact.js';

const MAX_EXCERPT = 200;

/**
 * A short, single-line view of a body for error messages: whitespace collapsed, at most 200 chars,
 * secrets hidden by the one redaction (src/util/redact.ts).
 */
export function excerpt(body: string, secrets: readonly string[] = []): string {
  const flat = redactText(body, secrets).replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_EXCERPT ? flat : `${flat.slice(0, MAX_EXCERPT - 1)}…`;
}
