import type { RequestScheduler, RetryHint } from '../http/types.js';
import { ConfigError } from '../errors.js';
import { HttpConnectionError, HttpTimeoutError, RetriesExhaustedError, createFetchTransport, createRequestScheduler, describeError } from '../http/index.js';
import type { Transport } from '../http/types.js';
import { resolveHeaders, type Job, type ResolvedRegion } from '../job/index.js';
import { pointInRegion } from '../tiling/index.js';
import { createEfaClient, type EfaClient, type EfaResult } from './client.js';
import type { Dialect } from './dialect.js';
import { dialectFor, dialects, type DialectName } from './dialects/index.js';
import { EfaCoordinateFormatError, EfaDialectMismatchError, EfaHtmlPageError, EfaHttpStatusError, EfaNotJsonError, EfaShapeError } from './errors.js';
import { OPERATIONS, type Operation } from './operations.js';

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
export const CONFIGURATION_OUTCOMES: ReadonlySet<ProbeOutcome> = new Set(['not-found', 'unauthorized', 'forbidden', 'unreachable', 'wrong-dialect']);

export interface ProbeCheck {
  readonly operation: Operation;
  readonly outcome: ProbeOutcome;
  /** One line for people: what was asked and what came back. */
  readonly message: string;
  /** What to change, when the outcome points at the job's configuration. */
  readonly hint?: string;
  readonly status?: number;
  /** The dialect the answer was in, when it was recognised. */
  readonly answeredIn?: string;
  readonly durationMs: number;
}

export interface ProbeResult {
  readonly baseUrl: string;
  readonly dialect: string;
  readonly checks: readonly ProbeCheck[];
  /** The checks whose outcome is a configuration error (see CONFIGURATION_OUTCOMES). */
  readonly configurationErrors: readonly ProbeCheck[];
  /** Every check ok or skipped. */
  readonly ok: boolean;
}

export interface ProbeOptions {
  /** Overrides the job's baseUrl (`--base-url`, `$EFA_BASE_URL`). */
  readonly baseUrl?: string | undefined;
  /** Overrides the job's dialect (`--dialect`). */
  readonly dialect?: DialectName | undefined;
  readonly transport?: Transport;
  /**
   * The scheduler to send through: a run passes its own, so the probe's requests count against the
   * job's rate ceiling and request budget. Default: one of the probe's own (one retry).
   */
  readonly scheduler?: RequestScheduler;
  /** Per request; default the job's timeoutMs, at most 15 s. */
  readonly timeoutMs?: number;
  /** Where `headers: { X: { env: NAME } }` are read from; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The job's upstream could not be used as configured (404/401/403, unreachable, another dialect): exit 2. */
export class UpstreamConfigError extends ConfigError {
  override name = 'UpstreamConfigError';
  constructor(readonly checks: readonly ProbeCheck[]) {
    super(checks.map((c) => `${c.operation}: ${c.message}${c.hint ? ` (${c.hint})` : ''}`).join('\n'), 'baseUrl');
  }
}

/** Throws UpstreamConfigError when the probe found a configuration error; for `run` before planning. */
export function assertUpstreamUsable(result: ProbeResult): void {
  if (result.configurationErrors.length > 0) throw new UpstreamConfigError(result.configurationErrors);
}

/** Half the side of the CoordInfo probe box, in degrees: a few hundred metres, so the answer is tiny. */
const probeBoxHalfDeg = 0.002;

/**
 * Remembers the last body a dialect was asked to parse, per operation (the operations are probed at
 * once), so a failed parse can still be classified.
 */
function sniffing(inner: Dialect): Dialect & { readonly lastBody: (operation: Operation) => unknown } {
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
function recognisedDialects(body: unknown): string[] {
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
 * fail fast, and backing off four times against a closed port only delays the exit 2 by seconds.
 */
class ProbeUnreachable extends Error implements RetryHint {
  override readonly name = 'ProbeUnreachable';
  readonly retryable = false;
  constructor(readonly connection: HttpConnectionError) {
    super(connection.message, { cause: connection });
  }
}

/** The transport the probe sends through: the run's own, with final connection failures made final. */
function failFast(inner: Transport): Transport {
  return {
    send: async (request) => {
      try {
        return await inner.send(request);
      } catch (error) {
        if (error instanceof HttpConnectionError && error.code !== undefined && finalConnectionCodes.has(error.code)) throw new ProbeUnreachable(error);
        throw error;
      }
    },
  };
}

const connectionCauseOf = (error: unknown): HttpConnectionError | undefined => {
  if (error instanceof HttpConnectionError) return error;
  if (error instanceof ProbeUnreachable) return error.connection;
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

interface Classified {
  readonly outcome: ProbeOutcome;
  readonly message: string;
  readonly hint?: string;
  readonly status?: number;
  readonly answeredIn?: string;
}

function classifyFailure(operation: Operation, error: unknown, jobDialect: string, lastBody: unknown): Classified {
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

type ProbeRequest = { readonly skip: string } | { readonly send: (client: EfaClient) => Promise<EfaResult<unknown>> };

/**
 * Sends one cheap request per operation the job sweeps, through the same EFA client a run uses, and
 * classifies each answer: reachable and in the job's dialect, or what is wrong and what to change.
 * Independent of the CLI and the database, so `doctor` and `run` (before planning) share it.
 */
export async function probeUpstream(
  loaded: { readonly job: Job; readonly region: ResolvedRegion },
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const { job } = loaded;
  const baseUrl = options.baseUrl !== undefined && options.baseUrl !== '' ? options.baseUrl : job.baseUrl;
  const dialectName = options.dialect ?? job.dialect;
  const dialect = sniffing(dialectFor(dialectName));
  const headers = resolveHeaders(job, options.env ?? process.env);
  const client = createEfaClient({
    baseUrl,
    transport: failFast(options.transport ?? createFetchTransport()),
    // One retry: a single 5xx blip should not fail a check; a wrong URL fails the same way twice.
    // The operations are asked at once (a handful of requests), within the job's rate.
    scheduler:
      options.scheduler ??
      createRequestScheduler({
        requestsPerSecond: job.rateLimit.requestsPerSecond,
        concurrency: OPERATIONS.length,
        retries: 1,
        timeoutMs: options.timeoutMs ?? Math.min(job.rateLimit.timeoutMs, 15_000),
      }),
    dialect,
    headers,
    ...(job.paths ? { paths: job.paths } : {}),
    secretNames: Object.keys(headers),
  });

  // A point of the region itself (the envelope's centre may lie in a hole of a polygon region).
  const centre = pointInRegion(loaded.region);
  const sweeps = job.sweeps;
  let stopIdSeen: string | undefined;
  // ServingLines for stops asks about the stop the CoordInfo probe saw, so it waits for that probe.
  let coordProbed: Promise<unknown> = Promise.resolve();

  const requests: [Operation, ProbeRequest][] = [];
  if (sweeps.coord || sweeps.vehicles || sweeps.parking) {
    const types = sweeps.coord?.types ?? ['ANY'];
    requests.push(['coordInfo', {
      send: (c) => {
        const probe = c.coordInfoBox({
          bbox: [centre.lon - probeBoxHalfDeg, centre.lat - probeBoxHalfDeg, centre.lon + probeBoxHalfDeg, centre.lat + probeBoxHalfDeg],
          filters: types.map((type) => ({ type })),
          max: 1,
        }).then((result) => {
          stopIdSeen = result.records.find((p) => p.type === 'STOP' && p.id)?.id ?? undefined;
          return result;
        });
        coordProbed = probe.catch(() => undefined);
        return probe;
      },
    }]);
  }
  if (sweeps.stopFinder) {
    const name = sweeps.stopFinder.names[0];
    requests.push(['stopFinder', name === undefined ? { skip: 'no name to look up' } : { send: (c) => c.stopFinder({ type: 'any', name, anyMaxSizeHitList: 1 }) }]);
  }
  if (sweeps.servingLines) {
    const lineName = sweeps.servingLines.lineNames[0];
    requests.push(['servingLines', lineName !== undefined
      ? { send: (c) => c.servingLinesByName({ lineName }) }
      : sweeps.servingLines.forStops
        ? {
            send: async (c) => {
              await coordProbed;
              // The CoordInfo probe may have returned a POI: ask once more for one stop near the centre.
              stopIdSeen ??= await findStopNear(c, centre);
              if (stopIdSeen === undefined) throw new NoStopToAsk();
              return c.servingLinesAtStop({ stopId: stopIdSeen });
            },
          }
        : { skip: 'no lineName to ask for' }]);
  }
  if (sweeps.addInfo) {
    const { publicationStatus } = sweeps.addInfo;
    requests.push(['addInfo', { send: (c) => c.addInfo({ filterPublicationStatus: publicationStatus }) }]);
  }
  if (sweeps.opArea) requests.push(['opArea', { send: (c) => c.opArea({ opareaSM: 'ALL', operatingZoneGeometry: false }) }]);

  // Every operation at once: a dead upstream is known after one round trip, not one per operation.
  const checks = await Promise.all(requests.map(([operation, request]) => probeOne(operation, request)));
  async function probeOne(operation: Operation, request: ProbeRequest): Promise<ProbeCheck> {
    if ('skip' in request) return { operation, outcome: 'skipped', message: `skipped: ${request.skip}`, durationMs: 0 };
    const started = Date.now();
    try {
      const result = await request.send(client);
      const body = dialect.lastBody(operation);
      const recognised = recognisedDialects(body);
      // `auto` reads any dialect; a named one must recognise its own answer, not merely survive parsing it.
      if (dialectName !== 'auto' && recognised.length > 0 && !recognised.includes(dialectName)) {
        const first = recognised[0] ?? '';
        return {
          operation, outcome: 'wrong-dialect', status: result.status, answeredIn: first, durationMs: Date.now() - started,
          message: `the answer is in the ${first} dialect, the job reads ${dialectName}`,
          hint: `set "dialect": "${first}" in the job (or "auto"), or pass --dialect ${first}`,
        };
      }
      const answeredIn = dialectName === 'auto' ? recognised[0] : dialectName;
      return {
        operation, outcome: 'ok', status: result.status, durationMs: Date.now() - started,
        message: `HTTP ${result.status}, ${result.records.length} record${result.records.length === 1 ? '' : 's'}${answeredIn ? `, ${answeredIn} dialect` : ''}`,
        ...(answeredIn ? { answeredIn } : {}),
      };
    } catch (error) {
      if (error instanceof NoStopToAsk) return { operation, outcome: 'skipped', message: 'skipped: no stop near the region\'s centre to ask for', durationMs: 0 };
      return { operation, durationMs: Date.now() - started, ...classifyFailure(operation, error, dialectName, dialect.lastBody(operation)) };
    }
  }
  const configurationErrors = checks.filter((c) => CONFIGURATION_OUTCOMES.has(c.outcome));
  return { baseUrl: redactedBase(baseUrl), dialect: dialectName, checks, configurationErrors, ok: checks.every((c) => c.outcome === 'ok' || c.outcome === 'skipped') };
}

/** Half the side of the box searched for a stop to ask ServingLines about: a couple of kilometres. */
const stopSearchHalfDeg = 0.02;

/** A stop id near the centre, or undefined; a failing CoordInfo is its own check's finding, not ServingLines'. */
async function findStopNear(client: EfaClient, centre: { lon: number; lat: number }): Promise<string | undefined> {
  try {
    const result = await client.coordInfoBox({
      bbox: [centre.lon - stopSearchHalfDeg, centre.lat - stopSearchHalfDeg, centre.lon + stopSearchHalfDeg, centre.lat + stopSearchHalfDeg],
      filters: [{ type: 'STOP' }],
      max: 1,
    });
    return result.records.find((p) => p.id)?.id ?? undefined;
  } catch {
    return undefined;
  }
}

/** ServingLines for stops, but no stop near the region's centre to ask about. */
class NoStopToAsk extends Error {
  override name = 'NoStopToAsk';
}

/** The base URL without credentials or query (which may carry an API key), for output. */
function redactedBase(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparsable baseUrl)';
  }
}
