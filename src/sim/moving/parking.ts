/**
 * Car-park occupancy as of a clock: the day curve (curves.ts) times a lot's own factor, plus a
 * little slow noise, as whole free places in [0, capacity]. A lot whose source reported a real
 * free count (ParkAPI) takes its factor from that observation, so the curve passes through it.
 *
 * Attributes whose names begin with `_` are the simulator's own bookkeeping and never rendered:
 * `_realtime: false` (no sensor: OSM lots, closed lots), `_baseFree` and `_baseAt` (the observed
 * free count and when, ISO 8601).
 */
import { epochMinutes } from '../clock.js';
import { hash32, hashText, unit } from '../rng.js';
import type { Pin } from '../types.js';
import type { World } from '../world.js';
import { occupancyCurve } from './curves.js';

export interface SimParking {
  readonly id: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  /** Places, null when the source does not say. */
  readonly capacity: number | null;
  /** Free places in [0, capacity]; null when the object has no real-time data. */
  readonly free: number | null;
}

/** Attributes that are bookkeeping, not part of any answer. */
export const isInternalAttr = (name: string): boolean => name.startsWith('_');

const NOISE_KNOT_MIN = 30;
const NOISE_AMPLITUDE = 0.08;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Slow noise in [-amplitude/2, amplitude/2], linear between knots every 30 minutes. */
function noise(h: number, minute: number): number {
  const k = Math.floor(minute / NOISE_KNOT_MIN);
  const f = (minute - k * NOISE_KNOT_MIN) / NOISE_KNOT_MIN;
  const knot = (i: number): number => (unit(hash32(h, i, 2)) - 0.5) * NOISE_AMPLITUDE;
  return knot(k) * (1 - f) + knot(k + 1) * f;
}

/** The lot's factor on the day curve: from its observed occupancy, else drawn per lot. */
function lotFactor(pin: Pin, h: number, capacity: number, parkRide: boolean): number {
  const baseFree = pin.attrs._baseFree, baseAt = pin.attrs._baseAt;
  if (typeof baseFree === 'number' && typeof baseAt === 'string' && !Number.isNaN(Date.parse(baseAt))) {
    const observed = 1 - clamp(baseFree, 0, capacity) / capacity;
    const curve = occupancyCurve(epochMinutes(new Date(baseAt)), parkRide);
    return clamp(observed / Math.max(curve, 0.05), 0.2, 1.6);
  }
  return 0.75 + 0.35 * unit(hash32(h, 1));
}

export const capacityOf = (pin: Pin): number | null =>
  typeof pin.attrs.capacity === 'number' && pin.attrs.capacity > 0 ? pin.attrs.capacity : null;

/** Free places of a PARKING pin at a UTC minute; null without a capacity or a sensor. */
export function freeAtMinute(world: World, pin: Pin, minute: number): number | null {
  const capacity = capacityOf(pin);
  if (capacity === null || pin.attrs._realtime === false) return null;
  const h = hashText(world.seed, pin.key);
  const parkRide = pin.attrs.parkRide === true;
  const occupied = clamp(occupancyCurve(minute, parkRide) * lotFactor(pin, h, capacity, parkRide) + noise(h, minute), 0, 1);
  return clamp(Math.round(capacity * (1 - occupied)), 0, capacity);
}

export function parkingOf(world: World, pin: Pin, at: Date): SimParking {
  return {
    id: pin.id ?? pin.key, name: pin.name, lon: pin.lon, lat: pin.lat,
    capacity: capacityOf(pin), free: freeAtMinute(world, pin, epochMinutes(at)),
  };
}

/** Every parking object of the world at that instant, by id. */
export function parkingAt(world: World, at: Date): SimParking[] {
  return [...world.allPins(['PARKING'])].map((p) => parkingOf(world, p, at)).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}
