/**
 * The one place that decides what a secret is and how it is hidden. Everything that leaves the
 * process (logs, `efa.runs`, `run_tiles.error`, `--json`, the HTML report, error messages) goes
 * through these functions, so a new secret shape is taught here once.
 *
 * Two kinds of redaction, and why both:
 * - structural, by name: a URL is parsed and its password and secret-named query parameters are
 *   replaced. This works before anyone knows the values (a `--db` URL in an error message).
 * - by value: the configured secrets (header values, URL passwords, secret parameters) are
 *   collected once with `collectSecrets` and cut out of free text a server or runtime wrote (a
 *   reply echoing the request, undici quoting a header).
 *
 * JSON values are walked (`redactDeep`), never serialised and searched: a regex over serialised
 * JSON can eat a closing quote and leave text that no longer parses.
 */

/** What a secret is replaced with. `*` survives URL serialisation unencoded. */
export const REDACTED = '***';

/**
 * Words that mark a parameter or header name as carrying a credential when they appear as a whole
 * word (`api_key`, `X-Api-Key`, `sig`, `sessionId`). Matched by word so `assignedStops` (…sig…) or
 * `monkey` are not taken for secrets.
 */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'sig',
  'signature',
  'secret',
  'password',
  'passwd',
  'pass',
  'pwd',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'session',
  'sessionid',
  'cookie',
  'jwt',
  'bearer',
]);

/** Fragments that mark a name as secret wherever they appear (`accesstoken`, `clientsecret`, `xapikey`). */
const SECRET_FRAGMENT = /token|secret|passw|apikey|api_key|signature|credential|authoriz/i;

/** The words of a name: split at non-alphanumerics and at lower-to-upper case changes. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * True when a query parameter, header or field of that name may hold a credential: `apikey`,
 * `api_key`, `X-Api-Key`, `Authorization`, `access_token`, `sig`, `X-Amz-Signature`, `password`,
 * `Cookie`… False for `Accept-Language`, `name_sf`, `assignedStops`.
 */
export function isSecretName(name: string): boolean {
  return SECRET_FRAGMENT.test(name) || wordsOf(name).some((word) => SECRET_WORDS.has(word));
}

/** Text shown instead of something that should be a URL but cannot be parsed: nothing of it is kept. */
export const UNPARSEABLE_URL = '[unparseable url]';

/**
 * A database URL's lone user name is a role, not a credential: the password comes from elsewhere
 * (PGPASSWORD, ~/.pgpass, trust or peer authentication), and hiding the role hides the one thing an
 * operator needs to see when the server refuses it.
 */
const databaseSchemes: ReadonlySet<string> = new Set(['postgres:', 'postgresql:']);
const loneUserIsSecret = (url: URL): boolean => url.username !== '' && url.password === '' && !databaseSchemes.has(url.protocol);

/**
 * The URL as safe to show: the password replaced (the user name is kept, it helps to tell
 * accounts apart), a lone user name replaced too (it is then usually a token, `https://TOKEN@host`;
 * not in a postgres:// URL, where it is the role), and the value of every secret-named query parameter replaced. A string that does not parse as a
 * URL gives `[unparseable url]`, since its secrets cannot be told apart.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return UNPARSEABLE_URL;
  }
  return hideUrlSecrets(parsed).href;
}

/** A copy of `url` with its secrets replaced; `url` itself is left alone. */
function hideUrlSecrets(url: URL): URL {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = REDACTED;
  else if (loneUserIsSecret(copy)) copy.username = REDACTED;
  for (const name of new Set(copy.searchParams.keys())) {
    if (isSecretName(name)) copy.searchParams.set(name, REDACTED);
  }
  return copy;
}

function hasUrlSecrets(url: URL): boolean {
  return url.password !== '' || loneUserIsSecret(url) || [...url.searchParams.keys()].some(isSecretName);
}

/**
 * A URL inside free text: scheme, `://`, then anything up to whitespace, a quote, a bracket or a
 * backslash. Stopping at quotes matters: a URL inside a JSON string must not take the closing quote.
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}\\]+/gi;

/** Where each form of a value may show up: raw, percent-decoded, and percent- or form-encoded. */
function formsOf(value: string): string[] {
  const forms = [value, encodeURIComponent(value), new URLSearchParams([['', value]]).toString().slice(1)];
  try {
    forms.push(decodeURIComponent(value));
  } catch {
    // Not percent-encoded after all; the raw form is enough.
  }
  return forms;
}

export interface SecretSources {
  /** URLs that may carry credentials: the job's `baseUrl`, `--base-url`, the database URL. */
  readonly urls?: readonly (URL | string | undefined)[];
  /** Request headers; the values of secret-named ones (and of `secretHeaderNames`) are secrets. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Header or query parameter names to treat as secret although their names look harmless. */
  readonly secretNames?: readonly string[];
  /** Values known to be secret by other means (a password from the environment). */
  readonly values?: readonly (string | undefined)[];
}

/** Words of a multi-word secret header value that count as a secret on their own when this long. */
const MIN_SUBSTRING_SECRET_LENGTH_OF_PARTS = 8;

/**
 * Every secret value the configuration holds, in every form a server or runtime may echo it,
 * longest first (so a value is not half-redacted by a shorter one it contains). Feed the result to
 * `redactText` and `redactDeep`.
 */
export function collectSecrets(sources: SecretSources): string[] {
  const marked = new Set((sources.secretNames ?? []).map((name) => name.toLowerCase()));
  const isSecret = (name: string): boolean => marked.has(name.toLowerCase()) || isSecretName(name);
  const values: string[] = [];
  for (const raw of sources.urls ?? []) {
    if (raw === undefined) continue;
    let url: URL;
    try {
      url = new URL(String(raw));
    } catch {
      continue;
    }
    if (url.password !== '') values.push(...formsOf(url.password));
    else if (loneUserIsSecret(url)) values.push(...formsOf(url.username));
    for (const [name, value] of url.searchParams) {
      if (isSecret(name)) values.push(...formsOf(value));
    }
  }
  for (const [name, value] of Object.entries(sources.headers ?? {})) {
    if (!isSecret(name)) continue;
    // `Bearer abc…`, `Basic …`: the credential alone may be echoed without its scheme word.
    // After an auth scheme word the credential counts whatever its length; elsewhere only long parts
    // are taken alone (a short word of a multi-word value is more likely plain text).
    const [first = '', ...rest] = value.trim().split(/\s+/);
    const scheme = /^(bearer|basic|token|digest|apikey|api-key|key)$/i.test(first);
    values.push(value, ...(scheme ? rest : [first, ...rest].filter((part) => part.length >= MIN_SUBSTRING_SECRET_LENGTH_OF_PARTS)));
  }
  for (const value of sources.values ?? []) if (value !== undefined) values.push(...formsOf(value));
  return [...new Set(values.filter((value) => value !== ''))].sort((a, b) => b.length - a.length);
}

/**
 * `text` with each known secret value replaced, and nothing else touched: for data (a reply body)
 * where a URL with a `token` parameter may be legitimate content and must stay as it is.
 */
export function redactValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * Values shorter than this are not searched for in text: `sessionID=0` or `key=1` in a base URL
 * would otherwise turn every 0 or 1 of a message into ***. They are still hidden wherever they sit
 * in a URL, by name.
 */
export const MIN_SECRET_LENGTH = 3;

/**
 * Secret values at least this long are cut out of reply data wherever they occur, even inside a
 * longer word (`"de:08111:badk3Y9a"` loses `k3Y9a`); a one- or two-character value only where it
 * stands as a whole word (`sig=1` hides `"1"` and `"Gleis 1"`'s 1, not the 1 inside `"de:08111:1000"`).
 * The price of a three-character secret is that the data containing it is masked too: a value that
 * short occurs by chance, and hiding it is the safe way to be wrong.
 */
export const MIN_SUBSTRING_SECRET_LENGTH = MIN_SECRET_LENGTH;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One data value (a decoded JSON string, a line of a reply) with the job's secrets replaced,
 * whatever their length: long ones anywhere, short ones as whole words.
 */
export function redactDataValue(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret === '' || !out.includes(secret)) continue;
    out =
      secret.length >= MIN_SUBSTRING_SECRET_LENGTH
        ? out.split(secret).join(REDACTED)
        : out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(secret)}(?![\\p{L}\\p{N}])`, 'gu'), REDACTED);
  }
  return out;
}

/** A JSON string literal as it sits in the text, escapes included. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * A reply body with the job's own secrets replaced wherever a server echoed them, whatever their
 * length. A JSON body is redacted structurally: only inside its string values (decoded, so an
 * escaped `\/` or `\u00xx` form is found too), never in numbers or the syntax, so it still parses
 * and a coordinate that happens to contain a short secret's digits is left alone. Any other body
 * (an HTML error page, plain text) is redacted as one data value.
 */
export function redactReplyBody(body: string, secrets: readonly string[]): string {
  // How each secret can sit in the raw text: as is, JSON-escaped, and with `/` escaped as `\/`.
  const wireForms = (secret: string): string[] => {
    const escaped = JSON.stringify(secret).slice(1, -1);
    return [secret, escaped, escaped.replaceAll('/', '\\/')];
  };
  const occursIn = (text: string, secret: string): boolean => wireForms(secret).some((form) => text.includes(form));
  const present = secrets.filter((secret) => secret !== '' && occursIn(body, secret));
  if (present.length === 0) return body;
  if (!/^\s*[[{]/.test(body)) return redactDataValue(body, present);
  return body.replace(JSON_STRING, (literal) => {
    if (!present.some((secret) => occursIn(literal, secret))) return literal;
    let value: unknown;
    try {
      value = JSON.parse(literal);
    } catch {
      return literal;
    }
    if (typeof value !== 'string') return literal;
    const redacted = redactDataValue(value, present);
    return redacted === value ? literal : JSON.stringify(redacted);
  });
}

/**
 * `text` with each known secret value replaced, and every URL in it redacted by `redactUrl` (only
 * URLs that carry credentials are touched; others are left as written). `secrets` as
 * `collectSecrets` returns them; order does not matter.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return redactValues(text, secrets).replace(URL_IN_TEXT, (match) => {
    let url: URL;
    try {
      url = new URL(match);
    } catch {
      return match;
    }
    return hasUrlSecrets(url) ? hideUrlSecrets(url).href : match;
  });
}

/**
 * A copy of `value` with every string passed through `redactText`, keys kept. `URL` objects become
 * redacted strings, `Error`s their redacted message; other objects are walked by their own
 * enumerable properties. Cycles are cut (`[circular]`), so a log field cannot hang the logger.
 */
export function redactDeep(value: unknown, secrets: readonly string[] = []): unknown {
  const sorted = [...secrets].sort((a, b) => b.length - a.length);
  const seen = new WeakSet<object>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redactText(node, sorted);
    if (node instanceof URL) return redactUrl(node);
    if (typeof node !== 'object' || node === null) return node;
    if (seen.has(node)) return '[circular]';
    seen.add(node);
    if (node instanceof Error) return redactText(node.message === '' ? node.name : `${node.name}: ${node.message}`, sorted);
    if (node instanceof Date) return node;
    if (Array.isArray(node)) return node.map(walk);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) out[key] = walk(child);
    return out;
  };
  return walk(value);
}
