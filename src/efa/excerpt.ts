const MAX_EXCERPT = 200;
const REDACTED = '***';

/** Replaces every secret value (API keys from the URL or headers) so it cannot leak into logs. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** A short, single-line view of a body for error messages: whitespace collapsed, at most 200 chars. */
export function excerpt(body: string, secrets: readonly string[] = []): string {
  const flat = redact(body, secrets).replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_EXCERPT ? flat : `${flat.slice(0, MAX_EXCERPT - 1)}…`;
}
