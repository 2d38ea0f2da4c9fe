import { EfaParameterError } from './errors.js';
import { OPERATION_PATHS, OPERATIONS, isOperation, type Operation, type PathOverrides } from './operations.js';
import { toQueryString, type Params } from './params.js';

/** Never echo the URL itself: it may carry an API key. */
export function parseBaseUrl(baseUrl: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new EfaParameterError('baseUrl', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EfaParameterError('baseUrl', `unsupported protocol ${url.protocol}`);
  }
  return url;
}

const EFA_PATH = /(^|\/)XML_[A-Z_]+_REQUEST$/;

/**
 * The path of every operation, with a gateway's overrides applied. An override can rename an
 * operation's path (`/v1/tp/coord`) but not point it at another or a misspelt EFA operation.
 */
export function resolvePaths(overrides: PathOverrides = {}): Readonly<Record<Operation, string>> {
  const paths: Record<Operation, string> = { ...OPERATION_PATHS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!isOperation(key)) throw new EfaParameterError(`paths.${key}`, `unknown operation; expected one of ${OPERATIONS.join(', ')}`);
    if (value === undefined) continue;
    const path = value.trim();
    if (path === '' || /[?#]/.test(path)) throw new EfaParameterError(`paths.${key}`, 'must be a non-empty path without ? or #');
    if (EFA_PATH.test(path) && !path.endsWith(OPERATION_PATHS[key])) {
      throw new EfaParameterError(`paths.${key}`, `names another EFA operation; ${key} is ${OPERATION_PATHS[key]}`);
    }
    paths[key] = path;
  }
  return paths;
}

/**
 * Appends `path` to the base URL's path whether or not either has a slash at the seam, and keeps
 * the base URL's own query (e.g. an API key) ahead of the request's parameters.
 */
export function buildUrl(base: URL, path: string, params: Params): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  const own = base.search.replace(/^\?/, '');
  const query = toQueryString(params);
  url.search = [own, query].filter((part) => part !== '').join('&');
  url.hash = '';
  return url;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Names whose values are treated as secret even when the caller names none. */
const SECRET_NAME = /key|token|secret|auth|pass|sig|credential/i;

/**
 * Every value that must not appear in an error: credentials in the base URL, and query
 * parameters or headers that are marked secret or look like it. Encoded forms are included
 * because servers echo URLs in either.
 */
export function collectSecrets(base: URL, headers: Readonly<Record<string, string>>, secretNames: readonly string[]): string[] {
  const marked = new Set(secretNames.map((name) => name.toLowerCase()));
  const isSecret = (name: string): boolean => marked.has(name.toLowerCase()) || SECRET_NAME.test(name);
  const values: string[] = [];
  if (base.password !== '') values.push(base.password, safeDecode(base.password));
  for (const [name, value] of base.searchParams) {
    if (isSecret(name)) values.push(value, encodeURIComponent(value), new URLSearchParams([['', value]]).toString().slice(1));
  }
  for (const [name, value] of Object.entries(headers)) {
    if (isSecret(name)) values.push(value, ...value.split(/\s+/).filter((part) => part.length >= 8));
  }
  // Longest first, so a value is not half-redacted by a shorter one it contains.
  return [...new Set(values.filter((value) => value !== ''))].sort((a, b) => b.length - a.length);
}
