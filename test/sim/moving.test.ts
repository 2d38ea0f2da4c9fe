/**
 * The moving world as a function of (world, clock): deterministic, smooth, bounded, and shaped
 * by the time of day as moving/curves.ts promises.
 */
import { describe, expect, it } from 'vitest';
import { pointInRing } from '../../src/sim/geo.js';
import {
  DRIFT_RADIUS_M, generateWorld, haversineM, LOW_CHARGE_PERCENT, parkingAt, vehiclesAt,
  type SimParking, type SimVehicle, type World,
} from '../../src/sim/index.js';
import { TODAY } from './helpers.js';

const world = generateWorld({ seed: 1, size: 5000, today: TODAY });
/** Tuesday 2026-11-24 and Sunday 2026-11-29, local time (CET). */
const at = (iso: string): Date => new Date(iso);
const TUE = (hhmm: string): Date => at(`2026-11-24T${hhmm}:00+01:00`);
const SUN = (hhmm: string): Date => at(`2026-11-29T${hhmm}:00+01:00`);

const count = (vs: readonly SimVehicle[], kind: string): number => vs.filter((v) => v.kind === kind).length;
const occupancy = (ps: readonly SimParking[]): number => {
  let cap = 0, used = 0;
  for (const p of ps) if (p.capacity !== null && p.free !== null) { cap += p.capacity; used += p.capacity - p.free; }
  return used / cap;
};

/** Vehicles that appeared, disappeared or moved between two snapshots. */
function changed(a: readonly SimVehicle[], b: readonly SimVehicle[]): number {
  const before = new Map(a.map((v) => [v.id, v]));
  const after = new Map(b.map((v) => [v.id, v]));
  let n = 0;
  for (const [id, v] of before) { const w = after.get(id); if (!w || w.lon !== v.lon || w.lat !== v.lat) n++; }
  for (const id of after.keys()) if (!before.has(id)) n++;
  return n;
}

describe('vehiclesAt', () => {
  it('is a pure function of (seed, clock): same answer for the same clock, in a fresh world too', () => {
    const a = vehiclesAt(world, TUE('15:00'));
    expect(a.length).toBeGreaterThan(500);
    expect(vehiclesAt(world, TUE('15:00'))).toEqual(a);
    expect(vehiclesAt(generateWorld({ seed: 1, size: 5000, today: '2030-01-01' }), TUE('15:00'))).toEqual(a);
    const other = vehiclesAt(generateWorld({ seed: 2, size: 5000, today: TODAY }), TUE('15:00'));
    expect(other).not.toEqual(a);
  });

  it('answers vehicles of the world with sane fields', () => {
    const vs = vehiclesAt(world, TUE('15:00'));
    for (const v of vs) {
      const pin = world.pin(v.id);
      expect(pin?.type).toBe('SHARING');
      expect(v.providerId).toBe(pin?.attrs['operatorId']);
      expect(v.kind).toBe(pin?.attrs['vehicleType']);
      expect(v.engine).toBe(pin?.attrs['engineType']);
      expect(v.id.split(':')).toHaveLength(3);
      const electric = v.engine === 'ELECTRIC' || v.engine === 'HYBRID';
      expect(v.chargePercent === null).toBe(!electric);
      expect(v.fuelPercent === null).toBe(v.engine === 'ELECTRIC');
      for (const pct of [v.chargePercent, v.fuelPercent]) if (pct !== null) expect(pct >= 0 && pct <= 100 && Number.isInteger(pct)).toBe(true);
      expect(v.available).toBe(v.chargePercent === null || v.chargePercent >= LOW_CHARGE_PERCENT);
    }
    expect(vs.some((v) => !v.available)).toBe(true);
  });

  it('fewer free-floating vehicles of every kind on the street at 03:00 than at 15:00', () => {
    const night = vehiclesAt(world, TUE('03:00'));
    const day = vehiclesAt(world, TUE('15:00'));
    for (const kind of ['BIKE', 'CAR', 'MINIVEHICLE']) {
      expect(count(day, kind)).toBeGreaterThan(0);
      expect(count(night, kind), kind).toBeLessThan(count(day, kind));
    }
    // E-scooters are collected most: at most 60 % of the day's are out at 03:00.
    expect(count(night, 'MINIVEHICLE')).toBeLessThan(0.6 * count(day, 'MINIVEHICLE'));
  });

  it('drift is bounded: each vehicle within its kind\'s radius of home, inside its provider\'s areas if home is', () => {
    let moved = 0;
    for (const when of [TUE('03:00'), TUE('08:10'), TUE('15:00'), SUN('12:34'), at('2027-07-01T18:00:00+02:00')]) {
      for (const v of vehiclesAt(world, when)) {
        const home = world.pin(v.id)!;
        const d = haversineM(home.lon, home.lat, v.lon, v.lat);
        expect(d).toBeLessThanOrEqual(DRIFT_RADIUS_M[v.kind]);
        if (d > 0) moved++;
        const areas = world.provider(v.providerId)?.areas ?? [];
        if (areas.some((a) => pointInRing(home.lon, home.lat, a.polygon))) {
          expect(areas.some((a) => pointInRing(v.lon, v.lat, a.polygon))).toBe(true);
        }
      }
    }
    expect(moved).toBeGreaterThan(1000);
  });

  it('a 5-minute step changes a small share of the fleet, an hour more, and time runs on', () => {
    const base = vehiclesAt(world, TUE('15:00'));
    const five = changed(base, vehiclesAt(world, TUE('15:05')));
    const hour = changed(base, vehiclesAt(world, TUE('16:00')));
    expect(five).toBeGreaterThan(0);
    expect(five / base.length).toBeLessThan(0.08);
    expect(hour).toBeGreaterThan(3 * five);
  });
});

describe('parkingAt', () => {
  const at10 = parkingAt(world, TUE('10:00'));

  it('lists every parking object with free places in [0, capacity], deterministically', () => {
    expect(at10.length).toBe([...world.allPins(['PARKING'])].length);
    for (const p of at10) {
      expect(p.capacity).not.toBeNull();
      expect(Number.isInteger(p.free)).toBe(true);
      expect(p.free!).toBeGreaterThanOrEqual(0);
      expect(p.free!).toBeLessThanOrEqual(p.capacity!);
    }
    expect(parkingAt(world, TUE('10:00'))).toEqual(at10);
  });

  it('fills in the morning and empties in the evening on a weekday; a Sunday stays emptier', () => {
    const night = occupancy(parkingAt(world, TUE('03:00')));
    const morning = occupancy(at10);
    const evening = occupancy(parkingAt(world, TUE('21:00')));
    expect(morning).toBeGreaterThan(night + 0.4);
    expect(evening).toBeLessThan(morning - 0.3);
    expect(occupancy(parkingAt(world, SUN('10:00')))).toBeLessThan(morning - 0.3);
    // Lot by lot too, not only in sum.
    const byId = new Map(parkingAt(world, TUE('03:00')).map((p) => [p.id, p]));
    const fuller = at10.filter((p) => p.free! < byId.get(p.id)!.free!).length;
    expect(fuller / at10.length).toBeGreaterThan(0.9);
  });

  it('changes a little in 5 minutes', () => {
    const later = new Map(parkingAt(world, TUE('10:05')).map((p) => [p.id, p]));
    for (const p of at10) expect(Math.abs(later.get(p.id)!.free! - p.free!)).toBeLessThanOrEqual(Math.ceil(0.05 * p.capacity!));
  });
});

describe('pins other than vehicles never move', () => {
  it('the moving world leaves stops, POIs and parking where they are', () => {
    const w: World = generateWorld({ seed: 1, size: 5000, today: TODAY });
    const before = [...w.allPins()].filter((p) => p.type !== 'SHARING');
    vehiclesAt(w, TUE('15:00'));
    parkingAt(w, TUE('15:00'));
    expect([...w.allPins()].filter((p) => p.type !== 'SHARING')).toEqual(before);
  });
});
