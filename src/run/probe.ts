import type { RequestScheduler, RetryHint } from '../http/types.js';
import { ConfigError, UpstreamUnavailableError } from '../errors.js';
import { HttpConnectionError, HttpTimeoutError, RetriesExhaustedError, createFetchTransport, createRequestScheduler, describeError } from '../http/index.js';
import type { Transport } from '../http/types.js';
import { resolveHeaders, type Job, type ResolvedRegion } from '../job/index.js';
import { pointInRegion } from '../tiling/index.js';
import { createEfaClient, type EfaClient, type EfaResult } from '../efa/client.js';
import type { Dialect } from '../efa/dialect.js';
import { dialectFor, dialects, type DialectName } from '../efa/dialects/index.js';
import { EfaCoordinateFormatError, EfaDialectMismatchError, EfaHtmlPageError, EfaHttpStatusError, EfaNotJsonError, EfaShapeError } from '../efa/errors.js';
import { OPERATIONS, type Operation } from '../efa/operations.js';
import { classifyFailure, CONFIGURATION_OUTCOMES, failFast, isTemporaryOutcome, recognisedDialects, sniffing, type ProbeOutcome } from './probe-outcome.js';

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
  /**
   * The checks, when every operation asked failed temporarily (refused, unresolvable, timed out, 5xx):
   * the upstream cannot be reached now. Empty when any operation answered otherwise.
   */
  readonly unavailable: readonly ProbeCheck[];
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

/** The job's upstream could not be used as configured (404/401/403, another dialect): exit 2. */
export class UpstreamConfigError extends ConfigError {
  override name = 'UpstreamConfigError';
  constructor(readonly checks: readonly ProbeCheck[]) {
    super(checks.map((c) => `${c.operation}: ${c.message}${c.hint ? ` (${c.hint})` : ''}`).join('\n'), 'baseUrl');
  }
}

/**
 * For `run` before planning: throws UpstreamConfigError when the probe found a configuration error
 * (exit 2), else UpstreamUnavailableError when no operation could be reached now (exit 75).
 */
export function assertUpstreamUsable(result: ProbeResult): void {
  if (result.configurationErrors.length > 0) throw new UpstreamConfigError(result.configurationErrors);
  if (result.unavailable.length > 0) {
    const what = result.unavailable.map((c) => `${c.operation}: ${c.message}${c.hint ? ` (${c.hint})` : ''}`).join('; ');
    throw new UpstreamUnavailableError(`the upstream ${result.baseUrl} cannot be reached now: ${what}. Nothing was started; try again later (exit 75)`);
  }
}

/** Half the side of the CoordInfo probe box, in degrees: a few hundred metres, so the answer is tiny. */
const probeBoxHalfDeg = 0.002;

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
              if (stopIdSeen === undefined) throw new NoStopToAskError();
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
      if (error instanceof NoStopToAskError) return { operation, outcome: 'skipped', message: 'skipped: no stop near the region\'s centre to ask for', durationMs: 0 };
      return { operation, durationMs: Date.now() - started, ...classifyFailure(operation, error, dialectName, dialect.lastBody(operation)) };
    }
  }
  const configurationErrors = checks.filter((c) => CONFIGURATION_OUTCOMES.has(c.outcome));
  const asked = checks.filter((c) => c.outcome !== 'skipped');
  const unavailable = asked.length > 0 && asked.every(isTemporaryOutcome) ? asked : [];
  return { baseUrl: redactedBase(baseUrl), dialect: dialectName, checks, configurationErrors, unavailable, ok: checks.every((c) => c.outcome === 'ok' || c.outcome === 'skipped') };
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
class NoStopToAskError extends Error {
  override name = 'NoStopToAskError';
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
