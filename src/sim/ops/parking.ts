/** The parking switches of CoordInfo: a separate box, object-type bitmask, cost and P+R/B+R filters. */
import { BadParameterError } from '../errors.js';
import { haversineM } from '../geo.js';
import type { Params } from '../params.js';
import { epochMinutes } from '../clock.js';
import { freeAtMinute, isInternalAttr } from '../moving/parking.js';
import type { BBox } from '../types.js';
import type { World } from '../world.js';
import type { PinOut } from './coord.js';

type Inclusion = 'INCLUDE' | 'EXCLUDE' | 'EXCLUSIVE';
const INCLUSIONS: readonly Inclusion[] = ['INCLUDE', 'EXCLUDE', 'EXCLUSIVE'];

export interface ParkingQuery {
  readonly box: BBox;
  readonly mask: number;
  readonly charge?: 'free' | 'pay';
  readonly bikeRide: Inclusion;
  readonly parkRide: Inclusion;
  readonly details: boolean;
  readonly realtime: boolean;
}

/** undefined when the request has no parking search (the filters alone don't make one). */
export function parkingQuery(p: Params): ParkingQuery | undefined {
  const charge = p.oneOf('parkingCharge', ['free', 'pay'] as const);
  const bikeRide = p.oneOf('parkingBikeRideInclusion', INCLUSIONS) ?? 'INCLUDE';
  const parkRide = p.oneOf('parkingParkRideInclusion', INCLUSIONS) ?? 'INCLUDE';
  const mask = p.int('parkingObjectType', -1, 63) ?? -1;
  const details = p.flag('parkObjInfo');
  const realtime = p.flag('parkObjInfoRealtime');
  const method = p.oneOf('parkingSearchMethod', ['BB'] as const);
  const on = p.flag('parkingBB');
  const lu = p.coord('parkingBBLU');
  const rl = p.coord('parkingBBRL');
  if (!method && !on && !lu && !rl) return undefined;
  if (!method) throw new BadParameterError('parkingSearchMethod', 'must be BB with parkingBB/parkingBBLU/parkingBBRL');
  if (!on) throw new BadParameterError('parkingBB', 'must be 1 with parkingSearchMethod=BB');
  if (!lu) throw new BadParameterError('parkingBBLU', 'expected <lon>:<lat>:WGS84[dd.ddddd]');
  if (!rl) throw new BadParameterError('parkingBBRL', 'expected <lon>:<lat>:WGS84[dd.ddddd]');
  if (lu.lon > rl.lon || lu.lat < rl.lat) throw new BadParameterError('parkingBBLU', 'upper-left corner must be west and north of parkingBBRL');
  return {
    box: [lu.lon, rl.lat, rl.lon, lu.lat], mask, bikeRide, parkRide, details, realtime: details && realtime,
    ...(charge ? { charge } : {}),
  };
}

function inclusionOk(mode: Inclusion, flag: boolean): boolean {
  return mode === 'INCLUDE' || (mode === 'EXCLUDE' ? !flag : flag);
}

/**
 * Parking objects in the parking box. Details (`parkObjInfo=1`) add the object's attributes;
 * real time (`parkObjInfoRealtime=1` with it) adds `realtime: { free, occupied }` as of the clock,
 * from moving/parking.ts, for objects that have real-time data (others carry no `realtime`).
 */
export function* parkingHits(world: World, q: ParkingQuery, centre: { lon: number; lat: number }, at?: Date): Generator<PinOut> {
  const minute = epochMinutes(at ?? new Date());
  for (const pin of world.pinsInBox(q.box, ['PARKING'])) {
    const a = pin.attrs;
    const kind = typeof a.parkingObjectType === 'number' ? a.parkingObjectType : 0;
    if (q.mask !== -1 && (q.mask & kind) === 0) continue;
    if (q.charge && a.charge !== q.charge) continue;
    if (!inclusionOk(q.bikeRide, a.bikeRide === true) || !inclusionOk(q.parkRide, a.parkRide === true)) continue;
    const capacity = typeof a.capacity === 'number' ? a.capacity : 0;
    const extra: Record<string, unknown> = { parkingObjectType: kind, capacity };
    if (q.details) for (const [k, v] of Object.entries(a)) if (!(k in extra) && !isInternalAttr(k)) extra[k] = v;
    if (q.realtime) {
      const free = freeAtMinute(world, pin, minute);
      if (free !== null) extra.realtime = { free, occupied: capacity - free };
    }
    yield { pin, distanceM: haversineM(centre.lon, centre.lat, pin.lon, pin.lat), extra };
  }
}
