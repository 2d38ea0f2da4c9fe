import { HttpConnectionError, HttpTimeoutError, RetriesExhaustedError, describeError } from '../http/index.js';
import type { RetryHint, Transport } from '../http/types.js';
import type { Dialect } from '../efa/dialect.js';
import { dialects } from '../efa/dialects/index.js';
import { EfaCoordinateFormatError, EfaDialectMismatchError, EfaHtmlPageError, EfaHttpStatusError, EfaNotJsonError, EfaShapeError } from '../efa/errors.js';
import type { Operation } from '../efa/operations.js';

/*
 * How the upstream probe (probe.ts) reads a failed request: the outcomes it names, the transport
 * that makes a refused connection final, and the classification of an error into an outcome.
 */

/**
 * What one probe request found out about one operation of a job's upstream:
 * - `ok`: it answered in the job's dialect;
 * - `skipped`: the job configures the operation but gives nothing cheap to ask for (no name);
 * - `not-found`, `unauthorized`, `forbidden`: HTTP 404, 401, 403;
 * - `unreachable`: no name resolution or no connection; `timeout`: no answer in time;
 * - `wrong-dialect`: an EFA answer in another dialect than the job's;
 * - `unexpected-answer`: HTML, a body that is not JSON, or JSON in no known dialect;
 * - `failed`: anything else (a 5xx after a retry, …).
 */
export type ProbeOutcome =
  | 'ok'
  | 'skipped'
  | 'not-found'
  | 'unauthorized'
  | 'forbidden'
  | 'unreachable'
  | 'timeout'
  | 'wrong-dialect'
  | 'unexpected-answer'
  | 'failed';

/** Outcomes that are the configuration's fault: `run` stops before planning (exit 2), a retry cannot help. */
export const CONFIGURATION_OUTCOMES: ReadonlySet<ProbeOutcome> = new Set(['not-found', 'unauthorized', 'forbidden', 'wrong-dialect']);

/**
 * Whether a check says the upstream cannot be reached now rather than that it is configured wrong:
 * a refused connection, a name that does not resolve, no answer in time, a 5xx or 429. An EFA server
 * in its nightly maintenance window looks like this; when every operation asked does, `run` ends
 * with exit 75 (try again later) before anything is started.
 */
export function isTemporaryOutcome(check: { readonly outcome: ProbeOutcome; readonly status?: number | undefined }): boolean {
  if (check.outcome === 'unreachable' || check.outcome === 'timeout') return true;
  return check.outcome === 'failed' && check.status !== undefined && (check.status >= 500 || check.status === 429);
}

/**
 * Remembers the last body a dialect was asked to parse, per operation (the operations are probed at
 * once), so a failed parse can still be classified.
 */
export function sniffing(inner: Dialect): Dialect & { readonly lastBody: (operation: Operation) => unknown } {
  const last = new Map<Operation, unknown>();
  const wrap =
    <T>(operation: Operation, parse: (body: unknown) => T) =>
    (body: unknown): T => {
      last.set(operation, body);
      return parse(body);
    };
  return {
    ...inner,
    lastBody: (operation) => last.get(operation),
    parse: {
      coordInfo: wrap('coordInfo', inner.parse.coordInfo),
      stopFinder: wrap('stopFinder', inner.parse.stopFinder),
      servingLines: wrap('servingLines', inner.parse.servingLines),
      addInfo: wrap('addInfo', inner.parse.addInfo),
      opArea: wrap('opArea', inner.parse.opArea),
    },
  };
}

/** The dialects whose detector recognises a body; the json shapes are the loosest, so they come last. */
export function recognisedDialects(body: unknown): string[] {
  const order = [dialects.rapidjson, dialects.legacy, dialects.json];
  return order.filter((d) => d.detect(body)).map((d) => d.name);
}

/**
 * Connection failures that say the address is wrong, not that the network hiccuped: a refused port
 * and a name that does not exist (EAI_AGAIN, a resolver that did not answer, is retried as usual).
 */
const finalConnectionCodes: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/**
 * A probe request that met a refused port or an unknown host. Not retryable: the probe is there to
 * fail fast, and backing off four times against a closed port only delays the exit 75 by seconds
 * (the scheduler's retry, minutes later, is the one that can help).
 */
class ProbeUnreachableError extends Error implements RetryHint {
  override readonly name = 'ProbeUnreachableError';
  readonly retryable = false;
  constructor(readonly connection: HttpConnectionError) {
    super(connection.message, { cause: connection });
  }
}

/** The transport the probe sends through: the run's own, with final connection failures made final. */
export function failFast(inner: Transport): Transport {
  return {
    send: async (request) => {
      try {
        return await inner.send(request);
      } catch (error) {
        if (error instanceof HttpConnectionError && error.code !== undefined && finalConnectionCodes.has(error.code)) throw new ProbeUnreachableError(error);
        throw error;
      }
    },
  };
}

const connectionCauseOf = (error: unknown): HttpConnectionError | undefined => {
  if (error instanceof HttpConnectionError) return error;
  if (error instanceof ProbeUnreachableError) return error.connection;
  if (error instanceof RetriesExhaustedError) return connectionCauseOf(error.cause);
  return undefined;
};
const timeoutCauseOf = (error: unknown): HttpTimeoutError | undefined => {
  if (error instanceof HttpTimeoutError) return error;
  if (error instanceof RetriesExhaustedError) return timeoutCauseOf(error.cause);
  return undefined;
};
const statusErrorOf = (error: unknown): EfaHttpStatusError | undefined => {
  if (error instanceof EfaHttpStatusError) return error;
  if (error instanceof RetriesExhaustedError) return statusErrorOf(error.cause);
  return undefined;
};

export interface Classified {
  readonly outcome: ProbeOutcome;
  readonly message: string;
  readonly hint?: string;
  readonly status?: number;
  readonly answeredIn?: string;
}

export function classifyFailure(operation: Operation, error: unknown, jobDialect: string, lastBody: unknown): Classified {
  const status = statusErrorOf(error);
  const pathHint = `paths.${operation}`;
  if (status?.status === 404) {
    return {
      outcome: 'not-found', status: 404, message: 'HTTP 404: no such path on the server',
      hint: `check baseUrl (the part before XML_…_REQUEST) and, behind a gateway, ${pathHint}`,
    };
  }
  if (status?.status === 401) {
    return {
      outcome: 'unauthorized', status: 401, message: 'HTTP 401: the server wants credentials',
      hint: 'set the auth header in the job\'s headers, e.g. { "Authorization": { "env": "EFA_API_TOKEN" } }, and that variable',
    };
  }
  if (status?.status === 403) {
    return {
      outcome: 'forbidden', status: 403, message: 'HTTP 403: the server refused this client',
      hint: 'check the auth header (headers) or the API key in baseUrl, and whether this address is allowed',
    };
  }
  if (status) return { outcome: 'failed', status: status.status, message: `HTTP ${status.status}` };
  const connection = connectionCauseOf(error);
  if (connection) {
    const dns = connection.code === 'ENOTFOUND' || connection.code === 'EAI_AGAIN';
    return {
      outcome: 'unreachable',
      message: dns ? `the host name does not resolve (${connection.code})` : `no connection (${connection.code ?? 'connection failed'})`,
      hint: dns ? 'check the host in baseUrl (or $EFA_BASE_URL)' : 'check the host and port in baseUrl, and that the server or a proxy lets this machine in',
    };
  }
  const timeout = timeoutCauseOf(error);
  if (timeout) return { outcome: 'timeout', message: timeout.message };
  // The client itself noticed the answer is another dialect's.
  const mismatch = error instanceof EfaDialectMismatchError ? error : error instanceof RetriesExhaustedError && error.cause instanceof EfaDialectMismatchError ? error.cause : undefined;
  if (mismatch) {
    return {
      outcome: 'wrong-dialect', answeredIn: mismatch.detected, message: `the answer is in the ${mismatch.detected} dialect, the job reads ${jobDialect}`,
      hint: `set "dialect": "${mismatch.detected}" in the job (or "auto"), or pass --dialect ${mismatch.detected}`,
    };
  }
  if (error instanceof EfaShapeError || error instanceof EfaCoordinateFormatError) {
    const recognised = recognisedDialects(lastBody).filter((name) => name !== jobDialect);
    const first = recognised[0];
    if (first !== undefined) {
      return {
        outcome: 'wrong-dialect', answeredIn: first, message: `the answer is in the ${first} dialect, the job reads ${jobDialect}`,
        hint: `set "dialect": "${first}" in the job (or "auto"), or pass --dialect ${first}`,
      };
    }
    return { outcome: 'unexpected-answer', message: error.message, hint: 'check baseUrl: this does not look like an EFA answer' };
  }
  if (error instanceof EfaHtmlPageError || error instanceof EfaNotJsonError || (error instanceof RetriesExhaustedError && (error.cause instanceof EfaHtmlPageError || error.cause instanceof EfaNotJsonError))) {
    return { outcome: 'unexpected-answer', message: describeError(error), hint: 'check baseUrl: an HTML page or a body that is not JSON came back' };
  }
  return { outcome: 'failed', message: describeError(error) };
}

