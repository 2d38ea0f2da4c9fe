import type { RequestScheduler, Transport } from '../http/types.js';
import { decodeReply, replyContext, type ReplySource } from './classify.js';
import type { Dialect, Parsed } from './dialect.js';
import { jsonDialect } from './dialects/json.js';
import { foreignDialectOf } from './dialects/recognise.js';
import { EfaCoordinateFormatError, EfaDialectMismatchError, EfaShapeError, EfaUnreadFormatError, formatPath, type ReplyContext } from './errors.js';
import type { Operation, PathOverrides } from './operations.js';
import type { Params } from './params.js';
import { ImplausibleCoordinatesError, ShapeMismatchError, UnreadFormatError, type ParseContext } from './parse/common.js';
import { resolveDuplicateNotices, resolveDuplicatePins } from './parse/duplicates.js';
import { mayHoldUnstorable, storable } from './text/storable.js';
import type { Location, Notice, Pin, Provider, RecordsByOperation, Reject, ServerMessage, ServingLine } from './records.js';
import { buildAddInfo, type AddInfoOptions } from './request/add-info.js';
import {
  buildCoordInfoBox,
  buildCoordInfoCircle,
  type CoordInfoBoxOptions,
  type CoordInfoCircleOptions,
} from './request/coord-info.js';
import { buildOpArea, type OpAreaOptions } from './request/op-area.js';
import {
  buildServingLinesAtStop,
  buildServingLinesByName,
  type ServingLinesAtStopOptions,
  type ServingLinesByNameOptions,
} from './request/serving-lines.js';
import { buildStopFinder, type StopFinderOptions } from './request/stop-finder.js';
import { buildCoordInfoParking, type CoordInfoParkingOptions } from './request/coord-parking.js';
import { buildVehicleDetail, type VehicleDetailOptions } from './request/vehicle-detail.js';
import { collectSecrets } from '../util/redact.js';
import { buildUrl, parseBaseUrl, resolvePaths } from './url.js';

export interface EfaClientOptions {
  /** Where the operations live, e.g. `http://127.0.0.1:8080/efa` (a trailing slash is optional). */
  readonly baseUrl: string | URL;
  readonly transport: Transport;
  readonly scheduler: RequestScheduler;
  readonly dialect?: Dialect;
  readonly headers?: Readonly<Record<string, string>>;
  readonly paths?: PathOverrides;
  /**
   * Query parameters of `baseUrl` and headers whose values must never appear in errors. Names
   * that look secret (`key`, `token`, `auth`, ...) are covered without being listed.
   */
  readonly secretNames?: readonly string[];
  /** Also return the decoded body (for debugging and for fields no record maps). */
  readonly keepRaw?: boolean;
  /** The deployment's IANA time zone, for times its answers write without an offset (ParseContext.timeZone). */
  readonly timeZone?: string;
}

export interface EfaResult<T> {
  readonly records: T[];
  /** Records of the answer that could not be normalised, for `efa.rejects`. */
  readonly rejects: Reject[];
  readonly messages: ServerMessage[];
  readonly status: number;
  /** Duration of the successful attempt. */
  readonly durationMs: number;
  /** Attempt number that succeeded (1 = no retry). */
  readonly attempts: number;
  readonly raw?: unknown;
}

export interface EfaClient {
  readonly dialect: Dialect;
  coordInfoCircle(options: CoordInfoCircleOptions): Promise<EfaResult<Pin>>;
  coordInfoBox(options: CoordInfoBoxOptions): Promise<EfaResult<Pin>>;
  /** Parking objects of a parking box alone (no object-type filter). */
  coordInfoParking(options: CoordInfoParkingOptions): Promise<EfaResult<Pin>>;
  /** The vehicle-detail answer is not specified; its `pins[]` are parsed and `raw` is always kept. */
  vehicleDetail(options: VehicleDetailOptions): Promise<EfaResult<Pin>>;
  stopFinder(options: StopFinderOptions): Promise<EfaResult<Location>>;
  servingLinesAtStop(options: ServingLinesAtStopOptions): Promise<EfaResult<ServingLine>>;
  servingLinesByName(options: ServingLinesByNameOptions): Promise<EfaResult<ServingLine>>;
  addInfo(options?: AddInfoOptions): Promise<EfaResult<Notice>>;
  opArea(options: OpAreaOptions): Promise<EfaResult<Provider>>;
}

/** What the request said that the parser may need: CoordInfo's object types (`type_<i>`); the deployment's zone. */
function parseContextOf(params: Params, timeZone: string | undefined): ParseContext {
  const requestedTypes = params.flatMap(([name, value]) => (/^type_\d+$/.test(name) && value !== null ? [value] : []));
  return { ...(requestedTypes.length === 0 ? {} : { requestedTypes }), ...(timeZone === undefined ? {} : { timeZone }) };
}

/**
 * One record per id within the answer (see parse/duplicates.ts): pins per (type, id), notices per
 * id with the newest kept. The dropped copies join the rejects.
 */
function withoutDuplicates<K extends Operation>(operation: K, parsed: Parsed<RecordsByOperation[K]>): Parsed<RecordsByOperation[K]> {
  const resolved =
    operation === 'coordInfo'
      ? resolveDuplicatePins(parsed.records as Pin[])
      : operation === 'addInfo'
        ? resolveDuplicateNotices(parsed.records as Notice[])
        : undefined;
  if (resolved === undefined) return parsed;
  return { records: resolved.records as RecordsByOperation[K][], rejects: [...parsed.rejects, ...resolved.rejects] };
}

function parseBody<K extends Operation>(
  dialect: Dialect,
  operation: K,
  body: unknown,
  request: { readonly url: URL; readonly params: Params; readonly timeZone?: string | undefined; readonly mayHoldUnstorable: boolean },
  context: () => ReplyContext,
): Parsed<RecordsByOperation[K]> {
  // Before parsing: read in the wrong dialect, an answer is all rejects or a shape error, and a
  // run would "succeed" with nothing stored or fail tile by tile after retries.
  const foreign = foreignDialectOf(dialect, body);
  if (foreign !== undefined) throw new EfaDialectMismatchError(context(), dialect.name, foreign.name);
  try {
    const parsed = dialect.parse[operation](body, parseContextOf(request.params, request.timeZone));
    // Text made storable once, for every dialect and relation, before any SQL and before duplicates
    // are judged (two ids that differ in a lone surrogate are one id stored): efa/text/storable.ts.
    return withoutDuplicates(operation, request.mayHoldUnstorable ? { records: parsed.records.map(storable), rejects: parsed.rejects } : parsed);
  } catch (error) {
    if (error instanceof UnreadFormatError) throw new EfaUnreadFormatError(context(), error.problem);
    if (error instanceof ShapeMismatchError) throw new EfaShapeError(context(), error.path, error.problem);
    if (error instanceof ImplausibleCoordinatesError) {
      const sent = request.url.searchParams.get('coordOutputFormat') ?? undefined;
      throw new EfaCoordinateFormatError(context(), formatPath(error.path), error.value, sent);
    }
    throw error;
  }
}

export function createEfaClient(options: EfaClientOptions): EfaClient {
  const base = parseBaseUrl(options.baseUrl);
  const paths = resolvePaths(options.paths);
  const dialect = options.dialect ?? jsonDialect;
  const headers = { ...options.headers };
  const secrets = collectSecrets({ urls: [base], headers, secretNames: options.secretNames ?? [] });

  const url = (operation: Operation, params: Params): URL =>
    buildUrl(base, paths[operation], [...dialect.extraParams(operation), ...params]);

  async function call<K extends Operation>(
    operation: K,
    params: Params,
    keepRaw = options.keepRaw === true,
  ): Promise<EfaResult<RecordsByOperation[K]>> {
    const target = url(operation, params);
    const source: ReplySource = { operation, path: target.pathname, secrets };
    // Decoding and parsing run inside the attempt so a cut body or an HTML page is retried too.
    return options.scheduler.run(operation, async (signal, attemptNo) => {
      const reply = await options.transport.send({ url: target, headers, operation, signal });
      const body = decodeReply(reply, source);
      const request = { url: target, params, timeZone: options.timeZone, mayHoldUnstorable: mayHoldUnstorable(reply.body) };
      const parsed = parseBody(dialect, operation, body, request, () => replyContext(reply, source));
      return {
        records: parsed.records,
        rejects: parsed.rejects,
        // Kept in efa.runs.messages (jsonb): storable as every record is (parseBody).
        messages: storable(dialect.messages(body)),
        status: reply.status,
        durationMs: reply.durationMs,
        attempts: attemptNo,
        ...(keepRaw ? { raw: body } : {}),
      };
    });
  }

  return {
    dialect,
    coordInfoCircle: async (o) => call('coordInfo', buildCoordInfoCircle(o)),
    coordInfoBox: async (o) => call('coordInfo', buildCoordInfoBox(o)),
    coordInfoParking: async (o) => call('coordInfo', buildCoordInfoParking(o)),
    vehicleDetail: async (o) => call('coordInfo', buildVehicleDetail(o), true),
    stopFinder: async (o) => call('stopFinder', buildStopFinder(o)),
    servingLinesAtStop: async (o) => call('servingLines', buildServingLinesAtStop(o)),
    servingLinesByName: async (o) => call('servingLines', buildServingLinesByName(o)),
    addInfo: async (o = {}) => call('addInfo', buildAddInfo(o)),
    opArea: async (o) => call('opArea', buildOpArea(o)),
  };
}
