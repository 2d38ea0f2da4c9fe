/** CoordInfo (XML_COORD_REQUEST): circle and box searches, parking box, vehicle detail. */
import { BadParameterError } from '../errors.js';
import { haversineM, inBox } from '../geo.js';
import { type Params } from '../params.js';
import { hash32 } from '../rng.js';
import { pinTypesFor } from '../truth.js';
import { OBJECT_TYPES, type BBox, type ObjectType, type Pin, type PinType } from '../types.js';
import type { World } from '../world.js';
import { parkingQuery, parkingHits, type ParkingQuery } from './parking.js';
import { vehicleDetail } from './vehicle.js';
import { vehicleFilter, type VehicleFilter } from './vehicle-filters.js';
import { movingVehicleHits } from './moving-hits.js';
import { stationHits } from './stations.js';
import { NearestHits } from './nearest.js';

/** One pin of an answer, dialect-neutral. */
export interface PinOut {
  readonly pin: Pin;
  readonly motTypes?: readonly number[];
  readonly distanceM: number;
  /** Fields beyond the documented ones, in output order. */
  readonly extra: Readonly<Record<string, unknown>>;
}
export interface CoordResult { readonly pins: PinOut[] }

interface Block {
  readonly index: number;
  readonly type: ObjectType;
  readonly radius: number;
  readonly incl?: readonly number[];
  readonly excl?: readonly number[];
}

export interface CoordQuery {
  readonly circle?: { lon: number; lat: number };
  readonly box?: BBox;
  readonly blocks: readonly Block[];
  readonly parking?: ParkingQuery;
  /** The vehicle filters (vehSF, vehEngineType, vehLocType<i>, vehAtStation), when any is given. */
  readonly vehicles?: VehicleFilter;
  readonly max?: number;
  readonly detail?: Params;
}

/** Radius of a block that gives none (circle mode), in metres. */
export const DEFAULT_RADIUS_M = 1000;

export function parseCoordQuery(p: Params): CoordQuery {
  if (p.has('coordReqType')) {
    p.oneOf('coordReqType', ['VEHICLEDETAIL']);
    return { blocks: [], detail: p };
  }
  const circle = p.coord('coord');
  let box: BBox | undefined;
  if (p.has('boundingBox') || p.has('boundingBoxLU') || p.has('boundingBoxRL')) {
    if (!p.has('boundingBox')) throw new BadParameterError('boundingBox', 'flag required with boundingBoxLU/boundingBoxRL');
    const lu = p.coord('boundingBoxLU') ?? missingCorner('boundingBoxLU');
    const rl = p.coord('boundingBoxRL') ?? missingCorner('boundingBoxRL');
    if (lu.lon > rl.lon || lu.lat < rl.lat) {
      throw new BadParameterError('boundingBoxLU', 'upper-left corner must be west and north of boundingBoxRL');
    }
    box = [lu.lon, rl.lat, rl.lon, lu.lat];
  }
  if (circle && box) throw new BadParameterError('coord', 'give either coord (circle) or boundingBox, not both');
  const parking = parkingQuery(p);
  const vehicles = vehicleFilter(p);
  if (!circle && !box && !parking) {
    throw new BadParameterError('coord', 'a search area is required: coord, or boundingBox with boundingBoxLU/boundingBoxRL');
  }
  const blocks: Block[] = [];
  for (const [index, raw] of p.indexed('type_')) {
    const type = p.oneOf(`type_${index}`, OBJECT_TYPES, raw) ?? 'ANY';
    const radius = p.int(`radius_${index}`, 0, 1_000_000) ?? DEFAULT_RADIUS_M;
    const incl = p.idList(`inclMOT_${index}`);
    const excl = p.idList(`exclMOT_${index}`);
    for (const name of ['exclLayers_', 'inclDrawClasses_', 'inclPOIH_']) {
      if (p.get(name + index) === '') throw new BadParameterError(name + index, 'must not be empty');
    }
    blocks.push({ index, type, radius, ...(incl ? { incl } : {}), ...(excl ? { excl } : {}) });
  }
  for (const name of p.names()) {
    const m = /^(radius|inclMOT|exclMOT)_(\d+)$/.exec(name);
    if (m && !blocks.some((b) => b.index === Number(m[2]))) throw new BadParameterError(name, `no type_${m[2]} for this filter block`);
  }
  if (blocks.length > 0 && p.get('inclFilter') !== '1') throw new BadParameterError('inclFilter', 'must be 1 when type_<i> is given');
  if ((circle || box) && blocks.length === 0) {
    throw new BadParameterError('type_0', 'at least one object-type filter (inclFilter=1&type_<i>=...) is required');
  }
  p.ymd('deadline');
  p.int('purpose', -1, 1_000_000);
  p.flag('fltrParkObj');
  const mapName = p.get('mapName');
  if (mapName !== undefined && mapName.toLowerCase() !== 'wgs84[dd.ddddd]') {
    throw new BadParameterError('mapName', `only WGS84[dd.ddddd] is served, got "${mapName}"`);
  }
  const max = p.int('max', 1, 1_000_000_000);
  return {
    blocks, ...(circle ? { circle } : {}), ...(box ? { box } : {}), ...(parking ? { parking } : {}),
    ...(vehicles ? { vehicles } : {}), ...(max !== undefined ? { max } : {}),
  };
}

function missingCorner(name: string): never {
  throw new BadParameterError(name, 'expected <lon>:<lat>:WGS84[dd.ddddd] (required in box mode)');
}

/** Whether the request's search area (circle, box or parking box) contains the point: for failbox faults. */
export function queryTouches(q: CoordQuery, lon: number, lat: number): boolean {
  if (q.box && inBox(lon, lat, q.box)) return true;
  if (q.parking && inBox(lon, lat, q.parking.box)) return true;
  if (q.circle) {
    const r = Math.max(0, ...q.blocks.map((b) => b.radius));
    if (haversineM(q.circle.lon, q.circle.lat, lon, lat) <= r) return true;
  }
  return false;
}

/**
 * The order in which a box or circle answer lists its hits, and so which hits survive `max`. EFA
 * does not document it, so the simulator offers the orders a real deployment plausibly uses:
 * - `distance`: nearest to the search centre first (the default, what EFA's own answers look like);
 * - `id`: by stop or object id, as a database index scan would return them;
 * - `insertion`: the order the objects were loaded in (generated or read from the world files);
 * - `random`: a fresh shuffle per request (seeded by the request's search area, so repeatable).
 */
export const COORD_ORDERS = ['distance', 'id', 'insertion', 'random'] as const;
export type CoordOrder = (typeof COORD_ORDERS)[number];

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderHits(world: World, q: CoordQuery, hits: PinOut[], order: CoordOrder): PinOut[] {
  const byKey = (a: PinOut, b: PinOut): number => compareText(a.pin.key, b.pin.key);
  switch (order) {
    case 'distance':
      return hits.sort((a, b) => a.distanceM - b.distanceM || byKey(a, b));
    case 'id':
      return hits.sort((a, b) => compareText(a.pin.id ?? a.pin.key, b.pin.id ?? b.pin.key) || byKey(a, b));
    case 'insertion': {
      // Base pins by their load index; pins added later come after them, in the order they were added.
      const rank = (p: PinOut): number => world.pinLayer.base.indexOf(p.pin.key) ?? Number.MAX_SAFE_INTEGER;
      return hits.map((h, i) => ({ h, r: rank(h), i })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.h);
    }
    case 'random': {
      const area = q.box ?? q.parking?.box ?? (q.circle ? [q.circle.lon, q.circle.lat, 0, 0] : [0, 0, 0, 0]);
      const seed = hash32(...area.map((v) => Math.round(v * 1e5)));
      const keyHash = (p: PinOut): number => {
        let h = seed;
        for (let i = 0; i < p.pin.key.length; i++) h = hash32(h, p.pin.key.charCodeAt(i));
        return h;
      };
      return hits.map((h) => ({ h, r: keyHash(h) })).sort((a, b) => a.r - b.r || byKey(a.h, b.h)).map((x) => x.h);
    }
  }
}

/**
 * Whether the answer depends on the clock even when the simulator has none set: vehicle detail,
 * vehicle filters and parking real-time. Other requests see the static world unless a clock is set,
 * so sweeps without those switches keep finding the world as it was generated or loaded.
 */
export function queryMoves(q: CoordQuery): boolean {
  return q.detail !== undefined || q.vehicles !== undefined || q.parking?.realtime === true;
}

/**
 * `at`: the request's clock, when the simulator has one (a fixed clock); without it, a query that
 * moves (queryMoves) is answered as of now, and any other from the static world.
 */
export function runCoordQuery(world: World, q: CoordQuery, order: CoordOrder = 'distance', at?: Date): CoordResult {
  const clock = at ?? (queryMoves(q) ? new Date() : undefined);
  if (q.detail) return { pins: vehicleDetail(world, q.detail, clock ?? new Date()) };
  const hits = order === 'distance' && q.max !== undefined ? new NearestHits<PinOut>(q.max) : new AllHits();
  const centre = q.circle ?? centreOf(q.box ?? q.parking?.box ?? [0, 0, 0, 0]);
  // A vehicle-kind filter leaves only vehicles in a search (see vehicle-filters.ts).
  const onlyVehicles = (q.vehicles?.kinds.length ?? 0) > 0;
  for (const b of q.blocks) {
    const types = new Set<PinType>(pinTypesFor([b.type]));
    if (onlyVehicles) for (const t of types) if (t !== 'SHARING') types.delete(t);
    // Stations answer the searches that list sharing objects, never a vehicle search (stations.ts).
    if (types.has('SHARING') && q.vehicles === undefined) {
      for (const out of stationHits(world, q, b.radius, centre, clock)) hits.offer(out);
    }
    const moving = clock !== undefined && types.delete('SHARING');
    if (moving) for (const out of movingVehicleHits(world, q, b.radius, centre, clock)) hits.offer(out);
    if (types.size === 0) continue;
    const found: Iterable<{ pin: Pin; distanceM: number }> = q.circle
      ? world.pinsInCircle(q.circle.lon, q.circle.lat, b.radius, types)
      : withDistance(world.pinsInBox(q.box ?? [0, 0, 0, 0], types), centre);
    for (const { pin, distanceM } of found) {
      // A hit held already, or one the answer cannot keep, is not described (a stop's MOTs are looked up).
      if (!hits.wants(pin.key, distanceM)) continue;
      const out = describe(world, pin, distanceM);
      if (pin.type === 'STOP' && !motOk(out.motTypes ?? [], b)) continue;
      hits.offer(out);
    }
  }
  if (q.parking && !onlyVehicles) for (const out of parkingHits(world, q.parking, centre, clock)) hits.put(out);
  if (hits instanceof NearestHits) return { pins: hits.sorted() };
  const pins = orderHits(world, q, hits.values(), order);
  return { pins: q.max !== undefined ? pins.slice(0, q.max) : pins };
}

/** Every hit of an answer, the first of a key kept (offer) or the last (put); ordered and cut to max after. */
class AllHits {
  private readonly byKey = new Map<string, PinOut>();
  wants(key: string): boolean {
    return !this.byKey.has(key);
  }
  offer(out: PinOut): void {
    if (!this.byKey.has(out.pin.key)) this.byKey.set(out.pin.key, out);
  }
  put(out: PinOut): void {
    this.byKey.set(out.pin.key, out);
  }
  values(): PinOut[] {
    return [...this.byKey.values()];
  }
}

function* withDistance(pins: Iterable<Pin>, c: { lon: number; lat: number }): Generator<{ pin: Pin; distanceM: number }> {
  for (const pin of pins) yield { pin, distanceM: haversineM(c.lon, c.lat, pin.lon, pin.lat) };
}

function centreOf(b: BBox): { lon: number; lat: number } {
  return { lon: (b[0] + b[2]) / 2, lat: (b[1] + b[3]) / 2 };
}

/** inclMOT keeps stops with any listed MOT; exclMOT drops stops whose MOTs are all excluded. */
function motOk(mots: readonly number[], b: Block): boolean {
  if (b.incl && !mots.some((m) => b.incl?.includes(m))) return false;
  if (b.excl && mots.length > 0 && mots.every((m) => b.excl?.includes(m))) return false;
  return true;
}

export function describe(world: World, pin: Pin, distanceM: number): PinOut {
  if (pin.type === 'STOP') {
    const stop = world.stopOf(pin);
    return { pin, motTypes: stop.motTypes, distanceM, extra: { ...pin.attrs } };
  }
  return { pin, distanceM, extra: { ...pin.attrs } };
}
