/** The simulator's HTTP server: routing, fault injection and the request log. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadParameterError, SimulatorOptionError } from './errors.js';
import { FaultEngine, parseFaultSpec, type FaultSpec } from './faults.js';
import { changeWorld } from './change.js';
import { generateWorld } from './generate.js';
import { loadWorld } from './load/index.js';
import { runAddInfo } from './ops/addinfo.js';
import { COORD_ORDERS, parseCoordQuery, queryMoves, queryTouches, runCoordQuery, type CoordOrder } from './ops/coord.js';
import { parseClock } from './clock.js';
import { applyCoordLies } from './ops/lies.js';
import { runOpArea } from './ops/oparea.js';
import { runServingLines } from './ops/serving-lines.js';
import { runStopFinder } from './ops/stopfinder.js';
import { Params } from './params.js';
import { renderers, SIM_DIALECTS, type Dialect, type SimDialect } from './render/index.js';
import type { StopIdScheme } from './types.js';
import type { World } from './world.js';

export interface SimulatorOptions {
  port?: number;
  /** Address to listen on; default loopback. A container needs 0.0.0.0 to be reached from its network. */
  host?: string;
  seed?: number;
  size?: number;
  worldDir?: string;
  faults?: string;
  today?: string;
  world?: World;
  /** The response dialect this simulated deployment speaks (default json, the shapes of efa-api.md). */
  dialect?: SimDialect;
  /**
   * Generated worlds only: `global` (default) numbers stops by their global id (`de:08111:6008`);
   * `local` by `localIdBase` + the stop's ordinal, with the global id sent beside it in every dialect.
   */
  stopIds?: StopIdScheme;
  /** Generated worlds with `stopIds: 'local'`: the first local stop id (default 1000000). */
  localIdBase?: number;
  /** Which hits a capped CoordInfo answer keeps (see COORD_ORDERS); default `distance`. */
  coordOrder?: CoordOrder;
  /**
   * A fixed clock (ISO 8601 with a zone): every CoordInfo answer is the moving world as of it.
   * Without it, vehicle detail, vehicle filters and parking real time are answered as of each
   * request's arrival, and every other request from the static world (see ops/coord.ts queryMoves).
   */
  clock?: string;
  /** Changes this share (0..1) of the world's nightly pins before serving (`changeWorld`): the same world a night later. */
  change?: number;
}

export interface RequestLogEntry {
  at: number;
  path: string;
  query: string;
  status: number;
  fault?: string;
  durationMs: number;
}

export interface Simulator {
  readonly url: string;
  readonly port: number;
  readonly world: World;
  readonly requestLog: readonly RequestLogEntry[];
  /** Fixes the clock (tests step time with it); undefined returns to each request's arrival time. */
  setClock(at: Date | undefined): void;
  /** The fixed clock, if any. */
  readonly clock: Date | undefined;
  stop(): Promise<void>;
}

/** `arrival`: when the request came in; `clock`: the fixed clock, if one is set. */
type Handler = (world: World, p: Params, dialect: Dialect, time: { arrival: Date; clock: Date | undefined }) => { body: unknown; failboxHit?: boolean };
const BASE = '/efa/';
const OUTPUT_FORMATS = new Set(['json', 'rapidjson', 'xml']);

function routes(faults: FaultSpec | undefined, coordOrder: CoordOrder): Readonly<Record<string, Handler>> {
  return {
    XML_COORD_REQUEST: (w, p, d, time) => {
      const q = parseCoordQuery(p);
      if (faults?.failbox.some((pt) => queryTouches(q, pt.lon, pt.lat))) return { body: null, failboxHit: true };
      const at = time.clock ?? (queryMoves(q) ? time.arrival : undefined);
      return { body: d.coord(applyCoordLies(runCoordQuery(w, q, coordOrder, at), q, faults)) };
    },
    XML_STOPFINDER_REQUEST: (w, p, d) => ({ body: d.stopFinder(runStopFinder(w, p)) }),
    XML_SERVINGLINES_REQUEST: (w, p, d) => ({ body: d.servingLines(runServingLines(w, p)) }),
    XML_ADDINFO_REQUEST: (w, p, d) => ({ body: d.addInfo(runAddInfo(w, p)) }),
    XML_OPAREA_REQUEST: (w, p, d) => ({ body: d.opArea(runOpArea(w, p)) }),
  };
}

const HTML_ERROR = '<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The EFA backend is temporarily unavailable.</p></body></html>';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const faults = options.faults ? parseFaultSpec(options.faults) : undefined;
  if (options.dialect !== undefined && !SIM_DIALECTS.includes(options.dialect)) {
    throw new BadParameterError('dialect', `unknown dialect "${String(options.dialect)}", expected one of ${SIM_DIALECTS.join(', ')}`);
  }
  if (options.coordOrder !== undefined && !COORD_ORDERS.includes(options.coordOrder)) {
    throw new BadParameterError('coordOrder', `unknown order "${String(options.coordOrder)}", expected one of ${COORD_ORDERS.join(', ')}`);
  }
  const dialect: Dialect = renderers[options.dialect ?? 'json'];
  let clock = options.clock !== undefined ? parseClock(options.clock) : undefined;
  if ((options.world || options.worldDir) && (options.stopIds !== undefined || options.localIdBase !== undefined)) {
    throw new SimulatorOptionError(options.stopIds !== undefined ? 'stopIds' : 'localIdBase', 'applies only to a generated world, not to a given or loaded one');
  }
  const world = options.world
    ?? (options.worldDir
      ? await loadWorld(options.worldDir, options.today ? { today: options.today } : {})
      : generateWorld({
        seed: options.seed ?? 1, size: options.size ?? 5000,
        ...(options.today ? { today: options.today } : {}),
        ...(options.stopIds !== undefined ? { stopIds: options.stopIds } : {}),
        ...(options.localIdBase !== undefined ? { localIdBase: options.localIdBase } : {}),
      }));
  if (options.today) world.today = options.today;
  if (options.change !== undefined && options.change > 0) changeWorld(world, options.change, options.seed ?? 1);
  const engine = faults ? new FaultEngine(faults) : undefined;
  const table = routes(faults, options.coordOrder ?? 'distance');
  const log: RequestLogEntry[] = [];
  const hung = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const entry: RequestLogEntry = { at: Date.now(), path: url.pathname, query: url.search.replace(/^\?/, ''), status: 0, durationMs: 0 };
    log.push(entry);
    const send = (status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}, delay = 0): void => {
      const finish = (): void => {
        entry.status = status;
        entry.durationMs = Math.round(performance.now() - started);
        if (res.destroyed) return;
        res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
        res.end(body);
      };
      if (delay <= 0) return finish();
      const t = setTimeout(() => { timers.delete(t); finish(); }, delay);
      timers.add(t);
    };
    // The dialect's own format (XML) where it has one, else JSON.
    const encoded = (body: unknown): { body: string | Buffer; contentType: string } =>
      dialect.encode?.(body) ?? { body: JSON.stringify(body), contentType: 'application/json; charset=utf-8' };
    const json = (status: number, body: unknown, delay = 0): void => {
      const out = encoded(body);
      send(status, out.body, out.contentType, {}, delay);
    };

    if (req.method !== 'GET') return json(405, dialect.error(405, `method ${req.method ?? ''} not allowed, use GET`));
    if (engine?.overRate(entry.at)) {
      entry.fault = 'rate429';
      const out = encoded(dialect.error(429, 'too many requests'));
      return send(429, out.body, out.contentType, {
        'Retry-After': String(faults?.rate429?.retryAfterS ?? 1),
      });
    }
    const roll = engine?.roll();
    const delay = roll?.latencyMs ?? 0;
    if (roll?.fault === 'hang') {
      entry.fault = 'hang';
      hung.add(res);
      res.on('close', () => { hung.delete(res); entry.durationMs = Math.round(performance.now() - started); });
      return;
    }
    if (roll?.fault === 'error5xx') {
      entry.fault = 'error5xx';
      return json(roll.status5xx, dialect.error(roll.status5xx, 'simulated server error'), delay);
    }
    const op = url.pathname.startsWith(BASE) ? table[url.pathname.slice(BASE.length)] : undefined;
    if (!op) return json(404, dialect.error(404, `no such operation: ${url.pathname}`), delay);
    const p = new Params(url.searchParams);
    let body: string | Buffer;
    let contentType = 'application/json; charset=utf-8';
    try {
      const format = p.required('outputFormat', 'expected JSON or rapidJSON');
      if (!OUTPUT_FORMATS.has(format.toLowerCase())) throw new BadParameterError('outputFormat', `unsupported "${format}", expected JSON, rapidJSON or XML`);
      const result = op(world, p, dialect, { arrival: new Date(entry.at), clock });
      if (result.failboxHit) {
        entry.fault = 'failbox';
        return json(503, dialect.error(503, 'simulated permanent failure of this area'), delay);
      }
      ({ body, contentType } = encoded(result.body));
    } catch (e) {
      if (e instanceof BadParameterError) return json(400, dialect.error(400, e.message), delay);
      return json(500, dialect.error(500, e instanceof Error ? e.message : String(e)), delay);
    }
    if (roll?.fault === 'truncate') {
      entry.fault = 'truncate';
      body = body.slice(0, Math.floor(body.length / 2));
    } else if (roll?.fault === 'malformed') {
      entry.fault = 'malformed';
      const cut = Math.floor(body.length / 2);
      body = `${body.slice(0, cut)},,}{"unterminated${body.slice(cut)}`;
    } else if (roll?.fault === 'html200') {
      entry.fault = 'html200';
      return send(200, HTML_ERROR, 'text/html; charset=utf-8', {}, delay);
    }
    send(200, body, contentType, {}, delay);
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/efa`,
    port,
    world,
    requestLog: log,
    setClock: (at) => {
      if (at !== undefined && Number.isNaN(at.getTime())) throw new SimulatorOptionError('clock', 'invalid date');
      clock = at === undefined ? undefined : new Date(at.getTime());
    },
    get clock() { return clock === undefined ? undefined : new Date(clock.getTime()); },
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const res of hung) res.destroy();
        hung.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
