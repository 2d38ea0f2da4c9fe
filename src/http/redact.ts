/**
 * Query parameters whose values may be credentials. EFA itself needs none, but deployments put API
 * keys in the query string, and URLs travel into logs and run records.
 */
const SECRET_PARAM = /key|token|secret|pass|auth|sig|credential|session/i;

/** The URL as safe to log: user info dropped, values of secret-looking query parameters replaced. */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    // Not parseable means we cannot tell secrets apart, so keep nothing of it.
    return '[unparseable url]';
  }
  parsed.username = '';
  parsed.password = '';
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, 'REDACTED');
  }
  return parsed.toString();
}

/** `text` with every non-trivial header value cut out, for runtime messages we did not write. */
export function scrubHeaderValues(text: string, headers: Readonly<Record<string, string>>): string {
  let out = text;
  for (const value of Object.values(headers)) {
    // Very short values (e.g. "1") would shred the message while protecting nothing secret.
    if (value.length >= 4) out = out.split(value).join('[redacted]');
  }
  return out;
}
