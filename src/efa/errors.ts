import { ExitCode, type Terminal } from '../errors.js';
import type { RetryHint } from '../http/types.js';
import type { Operation } from './operations.js';

/**
 * Base of every error the EFA client raises. Messages are built from the operation and the URL
 * path only (never the query string) so API keys passed as parameters cannot leak into logs.
 */
export abstract class EfaError extends Error implements RetryHint {
  abstract readonly retryable: boolean;
  readonly operation: Operation | undefined;
  readonly status: number | undefined;
  /** At most 200 chars of the body, whitespace collapsed, secrets redacted. */
  readonly excerpt: string;

  protected constructor(
    message: string,
    fields: { operation?: Operation | undefined; status?: number | undefined; excerpt?: string },
  ) {
    super(message);
    this.name = new.target.name;
    this.operation = fields.operation;
    this.status = fields.status;
    this.excerpt = fields.excerpt ?? '';
  }
}

export interface ReplyContext {
  readonly operation: Operation;
  /** URL path without query string. */
  readonly path: string;
  readonly status: number;
  readonly excerpt: string;
}

function where(ctx: ReplyContext): string {
  return `${ctx.operation} ${ctx.path}`;
}

function withExcerpt(text: string, ctx: ReplyContext): string {
  return ctx.excerpt === '' ? text : `${text}: ${ctx.excerpt}`;
}

/** The server answered with a non-2xx status. */
export class EfaHttpStatusError extends EfaError {
  readonly retryable: boolean;
  readonly rateLimited: boolean;
  readonly retryAfterMs: number | undefined;
  /**
   * 5xx, and a 429 without Retry-After: what a deployment in its maintenance window (or a gateway whose
   * quota is spent) answers to everything. A 429 with Retry-After is a server that answers and paces
   * us: the scheduler waits as it asks and lowers the rate, which is no outage.
   */
  readonly outage: boolean;

  constructor(ctx: ReplyContext, retryAfterMs?: number) {
    super(withExcerpt(`${where(ctx)}: HTTP ${ctx.status}`, ctx), ctx);
    this.rateLimited = ctx.status === 429;
    this.outage = ctx.status >= 500 || (ctx.status === 429 && retryAfterMs === undefined);
    this.retryable = ctx.status >= 500 || ctx.status === 429 || ctx.status === 408;
    this.retryAfterMs = retryAfterMs;
  }
}

/** The body is not JSON: empty, cut off mid-way, or another format. Cut bodies are usually transient. */
export class EfaNotJsonError extends EfaError {
  readonly retryable = true;

  constructor(ctx: ReplyContext, reason: string) {
    super(withExcerpt(`${where(ctx)}: body is not JSON (${reason})`, ctx), ctx);
  }
}

/**
 * An XML body that is not read: a DOCTYPE (no DTD, so no billion-laughs or external entity is ever
 * expanded or fetched), an undeclared entity, a body that is not well-formed. Only a cut body is
 * worth another try.
 */
export class EfaXmlRefusedError extends EfaError {
  readonly retryable: boolean;

  constructor(ctx: ReplyContext, reason: string, truncated: boolean) {
    super(withExcerpt(`${where(ctx)}: XML answer refused: ${reason}`, ctx), ctx);
    this.retryable = truncated;
  }
}

/** An answer in a format efa-sync recognises and does not read (the compact mobile XML): exit 2, with what to use. */
export class EfaUnreadFormatError extends EfaError implements Terminal {
  readonly retryable = false;
  readonly exitCode = ExitCode.usage;
  readonly terminal = true;

  constructor(ctx: ReplyContext, problem: string) {
    super(withExcerpt(`${where(ctx)}: ${problem}`, ctx), ctx);
  }
}

/** An HTML page (proxy error, maintenance page, login wall), even when the status is 200. */
export class EfaHtmlPageError extends EfaError {
  readonly retryable = true;
  /** A proxy's 5xx page: the deployment behind it is down. */
  readonly outage: boolean;

  constructor(ctx: ReplyContext) {
    super(withExcerpt(`${where(ctx)}: HTML page instead of JSON (HTTP ${ctx.status})`, ctx), ctx);
    this.outage = ctx.status >= 500;
  }
}

/** JSON whose shape the dialect does not recognise. Retrying returns the same body, so it is final. */
export class EfaShapeError extends EfaError {
  readonly retryable = false;
  /** Where in the body the first problem is, as zod reports it. */
  readonly path: readonly PropertyKey[];

  constructor(ctx: ReplyContext, path: readonly PropertyKey[], problem: string) {
    super(withExcerpt(`${where(ctx)}: unexpected JSON at ${formatPath(path)} (${problem})`, ctx), ctx);
    this.path = path;
  }
}

/**
 * The answer's coordinates are not WGS84 (a projected grid, or out of range). Retrying cannot help
 * and storing them would be wrong, so this is a configuration error: exit 2. What to do depends on
 * whether the request carried `coordOutputFormat` (legacy and rapidjson send it, json does not).
 */
export class EfaCoordinateFormatError extends EfaError implements Terminal {
  readonly retryable = false;
  readonly exitCode = ExitCode.usage;
  readonly terminal = true;
  /** The `coordOutputFormat` the request carried (the first one), or undefined when it sent none. */
  readonly sentCoordOutputFormat: string | undefined;

  constructor(ctx: ReplyContext, where_: string, value: string, sentCoordOutputFormat?: string) {
    const advice =
      sentCoordOutputFormat === undefined
        ? 'the server answers in its own grid. The json dialect does not send coordOutputFormat: use the legacy or rapidjson ' +
          'dialect, which send it, or add coordOutputFormat=WGS84[dd.ddddd] to the base URL'
        : `the server ignored coordOutputFormat=${sentCoordOutputFormat}, which was sent, and answered in its own grid. ` +
          'It may know the format by another name (WGS84[dd.ddddd] or EPSG:4326): put the one it accepts in the base URL, whose ' +
          'parameters are sent first, or ask the operator whether a gateway drops the parameter';
    super(`${where(ctx)}: coordinate ${value} at ${where_} is not WGS84 lon/lat; ${advice}`, ctx);
    this.sentCoordOutputFormat = sentCoordOutputFormat;
  }
}

/**
 * The answer is in another dialect than the one the client reads (a rapidJSON body read as json,
 * a legacy body read as rapidJSON). Every record would be rejected or the answer refused, and no
 * retry changes that, so this is a configuration error (exit 2) that names the setting to change.
 */
export class EfaDialectMismatchError extends EfaError implements Terminal {
  readonly retryable = false;
  readonly exitCode = ExitCode.usage;
  readonly terminal = true;

  constructor(
    ctx: ReplyContext,
    /** The dialect the client reads. */
    readonly expected: string,
    /** The dialect the answer looks like. */
    readonly detected: string,
  ) {
    super(
      `${where(ctx)}: the answer is in the ${detected} dialect, but it is read as ${expected}. ` +
        `Set "dialect": "${detected}" in the job file, or pass --dialect ${detected} (or --dialect auto)`,
      ctx,
    );
  }
}

/** A request option was invalid; nothing was sent. */
export class EfaParameterError extends EfaError {
  readonly retryable = false;
  /** The offending option or query parameter, e.g. `coord.lat` or `parkObjInfoRealtime`. */
  readonly parameter: string;

  constructor(parameter: string, problem: string, operation?: Operation) {
    super(`${operation === undefined ? '' : `${operation}: `}invalid ${parameter}: ${problem}`, { operation });
    this.parameter = parameter;
  }
}

/** Renders a zod issue path as `pins[3].coord.lat`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}
