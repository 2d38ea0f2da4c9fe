import { redactText } from '../util/redact.js';
import { terminalText } from '../util/terminal-text.js';
import { storableText } from './text/storable.js';

const MAX_EXCERPT = 200;

/**
 * A short, single-line view of a body for error messages: whitespace collapsed, at most 200 chars,
 * secrets hidden by the one redaction (src/util/redact.ts), terminal controls and bidi overrides
 * escaped (util/terminal-text.ts: an error body's ESC or BEL reaches doctor's report and every log),
 * and storable (a cut through a surrogate pair leaves no lone half for efa.runs' jsonb).
 */
export function excerpt(body: string, secrets: readonly string[] = []): string {
  const flat = terminalText(redactText(body, secrets).replace(/\s+/g, ' ').trim());
  return storableText(flat.length <= MAX_EXCERPT ? flat : `${flat.slice(0, MAX_EXCERPT - 1)}…`);
}
