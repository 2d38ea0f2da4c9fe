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
