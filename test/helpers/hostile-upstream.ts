import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A scriptable EFA upstream of its own for the hostile-upstream tests: it holds a fixed set of
 * stops (what the deployment really has) and answers CoordInfo box requests in the json dialect of
 * efa-api.md, truthfully unless the test gives it a `CoordBehaviour` that lies (swapped
 * coordinates, strings, an empty list, a silent cap, a huge body …). It imports nothing from
 * src/, so what it sends is independent of what efa-sync expects.
 */

/** One stop the upstream really has. */
export interface UpstreamStop {
  readonly id: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
}

export type BBox = readonly [number, number, number, number];

/** What a CoordInfo box request asked for. */
export interface CoordQuery {
  readonly bbox: BBox;
  /** `max`; the API's default is unlimited. */
  readonly max: number;
  /** The request as it arrived: path and query, and headers (for servers that echo them). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A wire record of `pins[]` as sent; a lying behaviour may put anything in it. */
export type WirePin = Record<string, unknown>;

export interface Reply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON text, or a stream for bodies too large (or endless) to build in memory. */
  readonly body: string | (() => Readable);
  /** The wire records the body carries (for the "nothing received is missing" check). */
  readonly sent?: readonly WirePin[];
}

/**
 * How the upstream answers one box request. `truthful` is what an honest server sends: the stops
 * inside the box, at most `max`, in id order.
 */
export type CoordBehaviour = (query: CoordQuery, truthful: readonly UpstreamStop[]) => Reply;

export interface UpstreamRequest {
  readonly at: number;
  readonly path: string;
  readonly query: CoordQuery | undefined;
  readonly status: number;
  /** The records this answer carried, as sent. */
  readonly sent: readonly WirePin[];
}

export interface HostileUpstream {
  /** The job's baseUrl (paths XML_…_REQUEST below it). */
  readonly url: string;
  readonly stops: readonly UpstreamStop[];
  readonly requests: readonly UpstreamRequest[];
  /** Answer from now on with `behaviour` (night two lies where night one told the truth). */
  behave(behaviour: CoordBehaviour): void;
  stop(): Promise<void>;
}

export const wirePin = (s: UpstreamStop): WirePin => ({ type: 'STOP', id: s.id, name: s.name, coord: { lat: s.lat, lon: s.lon }, motTypes: '5' });

export const pinsBody = (pins: readonly WirePin[]): Reply => ({ body: JSON.stringify({ pins }), sent: pins });

/** An honest server. */
export const truthfulAnswer: CoordBehaviour = (_query, truthful) => pinsBody(truthful.map(wirePin));

/** `<x>:<y>:WGS84[dd.ddddd]`, x the longitude (efa-api.md). */
function parseCorner(text: string | null): [number, number] | undefined {
  const m = /^(-?\d+(?:\.\d+)?):(-?\d+(?:\.\d+)?):/.exec(text ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function parseCoordQuery(req: IncomingMessage, params: URLSearchParams): CoordQuery | undefined {
  // A parking search names its own box (parkingBBLU/RL; efa-api.md): the same box for a behaviour.
  const upperLeft = parseCorner(params.get('boundingBoxLU') ?? params.get('parkingBBLU'));
  const lowerRight = parseCorner(params.get('boundingBoxRL') ?? params.get('parkingBBRL'));
  if (!upperLeft || !lowerRight) return undefined;
  const max = Number(params.get('max') ?? Number.POSITIVE_INFINITY);
  return { bbox: [upperLeft[0], lowerRight[1], lowerRight[0], upperLeft[1]], max, url: req.url ?? '', headers: req.headers };
}

const inside = (b: BBox, s: UpstreamStop): boolean => s.lon >= b[0] && s.lon <= b[2] && s.lat >= b[1] && s.lat <= b[3];

/**
 * `count` stops spread evenly (a jittered grid, deterministic) over `bbox`, ids `de:08111:<n>`.
 * Coordinates have six decimals, as the client writes them.
 */
export function gridStops(count: number, bbox: BBox, prefix = 'de:08111:'): UpstreamStop[] {
  const side = Math.ceil(Math.sqrt(count));
  const stops: UpstreamStop[] = [];
  for (let i = 0; i < count; i++) {
    const col = i % side;
    const row = Math.floor(i / side);
    const jitter = ((i * 7919) % 97) / 97 / 3;
    const lon = bbox[0] + ((col + 0.33 + jitter) / side) * (bbox[2] - bbox[0]);
    const lat = bbox[1] + ((row + 0.33 + jitter) / side) * (bbox[3] - bbox[1]);
    stops.push({ id: `${prefix}${1000 + i}`, name: `Stop ${i}`, lon: Number(lon.toFixed(6)), lat: Number(lat.toFixed(6)) });
  }
  return stops;
}

export async function startHostileUpstream(stops: readonly UpstreamStop[], initial: CoordBehaviour = truthfulAnswer): Promise<HostileUpstream> {
  let behaviour = initial;
  const requests: UpstreamRequest[] = [];
  const open = new Set<ServerResponse>();
  const sorted = [...stops].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = url.pathname.endsWith('/XML_COORD_REQUEST') ? parseCoordQuery(req, url.searchParams) : undefined;
    if (!query) {
      requests.push({ at, path: url.pathname, query, status: 404, sent: [] });
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('only CoordInfo box requests here');
      return;
    }
    const truthful = sorted.filter((s) => inside(query.bbox, s)).slice(0, query.max);
    const reply = behaviour(query, truthful);
    const status = reply.status ?? 200;
    requests.push({ at, path: url.pathname, query, status, sent: reply.sent ?? [] });
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...reply.headers });
    if (typeof reply.body === 'string') res.end(reply.body);
    // The client hangs up once it has had enough; that is the point, not a failure.
    else pipeline(reply.body(), res).catch(() => undefined);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/efa`,
    stops,
    requests,
    behave: (next) => {
      behaviour = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
