/**
 * The world loaded from ../shared/world-data moves too: GBFS free floaters drift and come and go,
 * station vehicles stay at their stations, ParkAPI lots follow the day curve through their real
 * reported free counts.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { haversineM, loadWorld, parkingAt, vehiclesAt, type World } from '../../src/sim/index.js';
import { TODAY, c, withSim } from './helpers.js';

const DATA = fileURLToPath(new URL('../../../shared/world-data', import.meta.url));
const TUE = (hhmm: string): Date => new Date(`2026-11-24T${hhmm}:00+01:00`);

describe.skipIf(!existsSync(DATA))('the real-data world moves', () => {
  let world: World;
  beforeAll(async () => { world = await loadWorld(DATA, { today: TODAY }); }, 120_000);

  it('GBFS free floaters drift and are fewer at night; station vehicles stay put and come back at night', () => {
    const night = vehiclesAt(world, TUE('03:00'));
    const day = vehiclesAt(world, TUE('15:00'));
    const voi = (vs: typeof day) => vs.filter((v) => v.providerId === 'voi-karlsruhe');
    expect(voi(day).length).toBeGreaterThan(500);
    expect(voi(night).length).toBeLessThan(voi(day).length);
    let drifted = 0;
    for (const v of day) {
      const home = world.pin(v.id)!;
      const d = haversineM(home.lon, home.lat, v.lon, v.lat);
      if (v.locationType === 'STATION') expect(d).toBe(0);
      else if (d > 0) drifted++;
    }
    expect(drifted).toBeGreaterThan(500);
    const stations = (vs: typeof day) => vs.filter((v) => v.locationType === 'STATION').length;
    const rushHour = vehiclesAt(world, TUE('08:00'));
    expect(stations(night)).toBeGreaterThan(stations(rushHour));
    expect(voi(day).every((v) => v.engine === 'ELECTRIC' && v.chargePercent !== null)).toBe(true);
  });

  it('ParkAPI lots carry real capacities and follow the curve through their reported free count', () => {
    const lots = (at: Date) => parkingAt(world, at).filter((p) => p.id.startsWith('parkapi:herrenberg:'));
    const morning = lots(TUE('10:00'));
    const night = new Map(lots(TUE('03:00')).map((p) => [p.id, p]));
    expect(morning.length).toBe(25);
    const live = morning.filter((p) => p.free !== null);
    expect(live.length).toBeGreaterThan(15);
    for (const p of live) expect(p.free!).toBeLessThanOrEqual(night.get(p.id)!.free!);
    // The file's own numbers: Altstadtgarage 97 places, 62 free on Thursday 2022-12-08 16:08.
    const observed = parkingAt(world, new Date('2022-12-08T16:08:21+01:00')).find((p) => p.id.startsWith('parkapi:herrenberg:') && p.name === 'Altstadtgarage')!;
    expect(observed.capacity).toBe(97);
    expect(Math.abs(observed.free! - 62)).toBeLessThanOrEqual(5);
    // A closed lot and the disabled-parking spaces without a total have no real-time data.
    expect(morning.find((p) => p.name.startsWith('Viehversteigerungshalle'))?.free).toBeNull();
    expect(morning.filter((p) => p.capacity === null).every((p) => p.free === null)).toBe(true);
    // Münsingen's lots (parkapi-reutlingen.json) are loaded, without totals.
    expect(parkingAt(world, TUE('10:00')).filter((p) => p.id.startsWith('parkapi:reutlingen:')).length).toBe(30);
  });

  it('OSM car parks have no real-time data, so their answers carry no realtime', () => withSim({ world, clock: '2026-11-24T10:00:00+01:00' }, async (_s, get) => {
    const q = `parkingSearchMethod=BB&parkingBB=1&parkingBBLU=${c(8.85, 48.61)}&parkingBBRL=${c(8.9, 48.58)}&parkObjInfo=1&parkObjInfoRealtime=1`;
    const pins = (await get('XML_COORD_REQUEST', q)).body.pins;
    const truth = new Map(parkingAt(world, TUE('10:00')).map((p) => [p.id, p]));
    const withRealtime = pins.filter((p) => p['realtime'] !== undefined);
    expect(withRealtime.length).toBeGreaterThan(10);
    expect(pins.length).toBeGreaterThan(withRealtime.length);
    for (const pin of pins) {
      const p = truth.get(pin.id ?? '')!;
      expect(pin['realtime']).toEqual(p.free === null ? undefined : { free: p.free, occupied: p.capacity! - p.free });
      expect(Object.keys(pin).some((k) => k.startsWith('_'))).toBe(false);
    }
  }));
});
