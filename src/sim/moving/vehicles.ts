/**
 * Sharing vehicles as of a clock. The world's SHARING pins are each vehicle's home; its state at a
 * minute is a pure function of (world seed, pin, minute), so any instant can be asked in any order.
 *
 * Each vehicle lives in slots of its own length (45–135 min, its own phase). In a slot it is either
 * out on a rental (absent) or parked. A free floater parks where its latest rental ended: a point
 * within its kind's drift radius of home, inside its provider's areas when home is inside one. At
 * night part of each free-floating fleet is off the street (collected), in a fixed order per
 * vehicle, so the fleet shrinks and grows smoothly. Station vehicles never move; they come and go
 * with rentals. Charge and fuel run down in a saw-tooth over days, stepping at slot boundaries.
 */
import { epochMinutes } from '../clock.js';
import { EARTH_RADIUS_M, bboxOfCircle, haversineM, inBox, pointInRing } from '../geo.js';
import { hash32, hashText, unit } from '../rng.js';
import type { Area, BBox, Pin, VehicleKind } from '../types.js';
import type { World } from '../world.js';
import { offStreetShare, rentedShare } from './curves.js';

export const ENGINE_TYPES = ['COMBUSTION', 'ELECTRIC', 'HYBRID'] as const;
export type EngineType = (typeof ENGINE_TYPES)[number];
export const LOCATION_TYPES = ['CLASSIC', 'FREEFLOATER', 'STATION', 'POSITION'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];
const KINDS: readonly VehicleKind[] = ['BIKE', 'CAR', 'MINIVEHICLE', 'MOTORCYCLE', 'TAXI'];

/** One sharing vehicle on the street at an instant. */
export interface SimVehicle {
  /** As served in the pin's id: the SharingRefId `<ID>:<OperatorID>:<OpAreaID>`. */
  readonly id: string;
  readonly providerId: string;
  readonly kind: VehicleKind;
  readonly engine: EngineType | null;
  readonly locationType: LocationType;
  readonly lon: number;
  readonly lat: number;
  /** Battery, 0–100, for electric and hybrid vehicles; else null. */
  readonly chargePercent: number | null;
  /** Tank, 0–100, for combustion and hybrid vehicles; else null. */
  readonly fuelPercent: number | null;
  /** Bookable: false while an electric vehicle's battery is below LOW_CHARGE_PERCENT (shown, not bookable). */
  readonly available: boolean;
}

/** How far a free floater of each kind may end up from its home, in metres. */
export const DRIFT_RADIUS_M: Readonly<Record<VehicleKind, number>> = { BIKE: 400, MINIVEHICLE: 400, MOTORCYCLE: 600, CAR: 800, TAXI: 1000 };
export const MAX_DRIFT_M = Math.max(...Object.values(DRIFT_RADIUS_M));
export const LOW_CHARGE_PERCENT = 20;
/** Slots looked back for the latest rental; beyond that a vehicle stands at home. */
const LOOKBACK_SLOTS = 96;
const RAD = Math.PI / 180;

const oneOf = <T extends string>(values: readonly T[], v: unknown): T | undefined => values.find((x) => x === v);
const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/** The provider areas a vehicle's spot must lie in, when its home lies in one. */
class AreaCache {
  private readonly byProvider = new Map<string, readonly Area[]>();
  constructor(private readonly world: World) {}
  areas(providerId: string): readonly Area[] {
    let a = this.byProvider.get(providerId);
    if (!a) { a = this.world.provider(providerId)?.areas ?? []; this.byProvider.set(providerId, a); }
    return a;
  }
}

const inAny = (areas: readonly Area[], lon: number, lat: number): boolean => areas.some((a) => pointInRing(lon, lat, a.polygon));

/** Where a free floater parks after the rental of slot `slot`: within `radius` of home, in its areas. */
function spot(h: number, slot: number, pin: Pin, radius: number, areas: readonly Area[]): [number, number] {
  const constrained = areas.length > 0 && inAny(areas, pin.lon, pin.lat);
  for (let attempt = 0; attempt < 4; attempt++) {
    const g = hash32(h, slot, 3 + attempt);
    const angle = unit(g) * 2 * Math.PI;
    const dist = radius * Math.sqrt(unit(hash32(g, 1))) * 0.999;
    const dLat = (dist * Math.cos(angle)) / EARTH_RADIUS_M / RAD;
    const dLon = (dist * Math.sin(angle)) / EARTH_RADIUS_M / RAD / Math.max(Math.cos(pin.lat * RAD), 1e-6);
    const lon = round6(pin.lon + dLon), lat = round6(pin.lat + dLat);
    // Rounding may nudge a point by centimetres; keep the bound exact.
    if (haversineM(pin.lon, pin.lat, lon, lat) > radius) continue;
    if (!constrained || inAny(areas, lon, lat)) return [lon, lat];
  }
  return [pin.lon, pin.lat];
}

/** A saw-tooth level (100 down to 100 - drop, then refilled) over a cycle of `cycle` minutes. */
function level(minute: number, cycle: number, phase: number, drop: number): number {
  const f = (((minute + phase) % cycle) + cycle) % cycle / cycle;
  return Math.round(100 - drop * f);
}

/** The vehicle of a SHARING pin at a UTC minute; undefined while it is rented or off the street. */
export function vehicleAtMinute(world: World, pin: Pin, minute: number, cache = new AreaCache(world)): SimVehicle | undefined {
  const a = pin.attrs;
  const kind = oneOf(KINDS, a.vehicleType) ?? 'BIKE';
  const locationType = oneOf(LOCATION_TYPES, a.locationType) ?? 'FREEFLOATER';
  const engine = oneOf(ENGINE_TYPES, a.engineType) ?? null;
  const h = hashText(world.seed, pin.key);
  const slotLen = 45 + (h % 91);
  const phase = (h >>> 8) % slotLen;
  const slotOf = (t: number): number => Math.floor((t + phase) / slotLen);
  const slotStart = (k: number): number => k * slotLen - phase;
  const rented = (k: number): boolean => unit(hash32(h, k, 1)) < rentedShare(slotStart(k));
  const k = slotOf(minute);
  if (rented(k)) return undefined;
  const station = locationType === 'STATION';
  if (!station && unit(hash32(h, 2)) < offStreetShare(minute, kind)) return undefined;
  let lon = pin.lon, lat = pin.lat;
  if (!station) {
    for (let j = k - 1; j >= k - LOOKBACK_SLOTS; j--) {
      if (!rented(j)) continue;
      const providerId = typeof a.operatorId === 'string' ? a.operatorId : '';
      [lon, lat] = spot(h, j, pin, DRIFT_RADIUS_M[kind], cache.areas(providerId));
      break;
    }
  }
  const start = slotStart(k);
  const electric = engine === 'ELECTRIC' || engine === 'HYBRID';
  const combustion = engine === 'COMBUSTION' || engine === 'HYBRID';
  const chargePercent = electric ? level(start, 2160 + (hash32(h, 4) % 3600), hash32(h, 5) % 10_000, 88) : null;
  const fuelPercent = combustion ? level(start, 5760 + (hash32(h, 6) % 8640), hash32(h, 7) % 20_000, 85) : null;
  return {
    id: pin.id ?? pin.key,
    providerId: typeof a.operatorId === 'string' ? a.operatorId : '',
    kind, engine, locationType, lon, lat, chargePercent, fuelPercent,
    available: chargePercent === null || chargePercent >= LOW_CHARGE_PERCENT,
  };
}

/** The vehicle of a SHARING pin at an instant (undefined when absent). */
export function vehicleOf(world: World, pin: Pin, at: Date): SimVehicle | undefined {
  return vehicleAtMinute(world, pin, epochMinutes(at));
}

const byId = (x: SimVehicle, y: SimVehicle): number => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Every vehicle on the street at that instant, by id: the truth a sweep at that clock must see. */
export function vehiclesAt(world: World, at: Date): SimVehicle[] {
  const minute = epochMinutes(at);
  const cache = new AreaCache(world);
  const out: SimVehicle[] = [];
  for (const pin of world.allPins(['SHARING'])) {
    const v = vehicleAtMinute(world, pin, minute, cache);
    if (v) out.push(v);
  }
  return out.sort(byId);
}

/** A box grown by `m` metres on every side. */
function grow(b: BBox, m: number): BBox {
  const dLat = m / EARTH_RADIUS_M / RAD;
  const dLon = dLat / Math.max(Math.cos(Math.max(Math.abs(b[1]), Math.abs(b[3])) * RAD), 1e-6);
  return [b[0] - dLon, b[1] - dLat, b[2] + dLon, b[3] + dLat];
}

/** The vehicles whose position at that instant lies in the box (edges inclusive), with their pins. */
export function vehiclesInBox(world: World, at: Date, box: BBox): { pin: Pin; vehicle: SimVehicle }[] {
  const minute = epochMinutes(at);
  const cache = new AreaCache(world);
  const out: { pin: Pin; vehicle: SimVehicle }[] = [];
  // Homes within the drift radius of the box are the only ones that can be inside it.
  for (const pin of world.pinsInBox(grow(box, MAX_DRIFT_M), ['SHARING'])) {
    const v = vehicleAtMinute(world, pin, minute, cache);
    if (v && inBox(v.lon, v.lat, box)) out.push({ pin, vehicle: v });
  }
  return out;
}

/** The vehicles within `radiusM` of a point at that instant, with their distance. */
export function vehiclesInCircle(world: World, at: Date, lon: number, lat: number, radiusM: number): { pin: Pin; vehicle: SimVehicle; distanceM: number }[] {
  return vehiclesInBox(world, at, bboxOfCircle(lon, lat, radiusM)).flatMap(({ pin, vehicle }) => {
    const distanceM = haversineM(lon, lat, vehicle.lon, vehicle.lat);
    return distanceM <= radiusM ? [{ pin, vehicle, distanceM }] : [];
  });
}
