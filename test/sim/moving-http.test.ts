/**
 * Every CoordInfo answer reflects the clock: box and circle searches, parking real time and the
 * vehicle detail agree with vehiclesAt / parkingAt at that clock; without a clock, requests with
 * no vehicle or real-time switch still see the static world.
 */
import { describe, expect, it } from 'vitest';
import { generateWorld, haversineM, parkingAt, vehiclesAt, type SimVehicle } from '../../src/sim/index.js';
import { TODAY, c, withSim, type PinJ } from './helpers.js';

const world = generateWorld({ seed: 1, size: 5000, today: TODAY });
const CLOCK = '2026-11-24T08:30:00+01:00';
const NOW = new Date(CLOCK);
const REGION = [9.05, 48.7, 9.3, 48.85] as const;
const BOX = `boundingBox&boundingBoxLU=${c(REGION[0], REGION[3])}&boundingBoxRL=${c(REGION[2], REGION[1])}`;
const inRegion = (v: { lon: number; lat: number }): boolean => v.lon >= REGION[0] && v.lon <= REGION[2] && v.lat >= REGION[1] && v.lat <= REGION[3];

/** What a vehicle pin of the json dialect must say, from the truth alone. */
const expected = (v: SimVehicle): Record<string, unknown> => ({
  type: 'SHARING', id: v.id, coord: { lat: v.lat, lon: v.lon }, vehicleType: v.kind, available: v.available,
  ...(v.chargePercent === null ? {} : { chargePercent: v.chargePercent }),
  ...(v.fuelPercent === null ? {} : { fuelPercent: v.fuelPercent }),
});
const byId = (a: { id?: string }, b: { id?: string }): number => ((a.id ?? '') < (b.id ?? '') ? -1 : 1);

describe('CoordInfo as of the clock', () => {
  it('a box search with vehSF holds exactly the vehicles of those kinds that vehiclesAt puts in the box', () => withSim({ world, clock: CLOCK }, async (_s, get) => {
    const r = await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=BIKE&vehSF=MINIVEHICLE`);
    expect(r.status).toBe(200);
    const truth = vehiclesAt(world, NOW).filter((v) => (v.kind === 'BIKE' || v.kind === 'MINIVEHICLE') && inRegion(v));
    expect(truth.length).toBeGreaterThan(300);
    expect(r.body.pins.every((p) => p.type === 'SHARING')).toBe(true);
    expect([...r.body.pins].sort(byId)).toEqual(truth.map((v) => expect.objectContaining(expected(v))));
    const again = await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=BIKE&vehSF=MINIVEHICLE`);
    expect(again.text).toBe(r.text);
  }));

  it('engine and location filters narrow the vehicles; station vehicles need vehAtStation', () => withSim({ world, clock: CLOCK }, async (_s, get) => {
    const electric = (await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=CAR&vehEngineType=ELECTRIC`)).body.pins;
    const truth = vehiclesAt(world, NOW).filter((v) => v.kind === 'CAR' && v.engine === 'ELECTRIC' && inRegion(v));
    expect(electric.map((p) => p.id).sort()).toEqual(truth.map((v) => v.id));
    const freeFloaters = (await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=CAR&vehLocType0=FREEFLOATER`)).body.pins;
    expect(freeFloaters.length).toBe(vehiclesAt(world, NOW).filter((v) => v.kind === 'CAR' && inRegion(v)).length);
    expect((await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=CAR&vehLocType0=STATION&vehAtStation=1`)).body.pins).toEqual([]);
    expect((await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY&vehSF=SHIP`)).status).toBe(400);
  }));

  it('a circle search places vehicles by their moved position; other pins are as static', () => withSim({ world, clock: CLOCK }, async (_s, get) => {
    const [lon, lat] = [9.18, 48.777];
    const r = (await get('XML_COORD_REQUEST', `coord=${c(lon, lat)}&inclFilter=1&type_0=ANY&radius_0=600`)).body.pins;
    const vehicles = vehiclesAt(world, NOW).filter((v) => haversineM(lon, lat, v.lon, v.lat) <= 600);
    expect(vehicles.length).toBeGreaterThan(10);
    expect(r.filter((p) => p.type === 'SHARING').sort(byId)).toEqual(vehicles.map((v) => expect.objectContaining(expected(v))));
    const others = [...world.pinsInCircle(lon, lat, 600)].filter((h) => h.pin.type !== 'SHARING' && h.pin.type !== 'PARKING');
    const got = r.filter((p) => p.type !== 'SHARING');
    expect(got.map((p) => `${p.id ?? ''}|${p.name}|${p.coord.lon}|${p.coord.lat}`).sort())
      .toEqual(others.map((h) => `${h.pin.id ?? ''}|${h.pin.name}|${h.pin.lon}|${h.pin.lat}`).sort());
  }));

  it('a clock-less request without vehicle or real-time switches answers the static world', () => withSim({ world }, async (_s, get) => {
    const r = (await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY`)).body.pins;
    const truth = world.truth([...REGION]);
    expect(r.map((p) => `${p.type}|${p.id ?? ''}|${p.coord.lon}|${p.coord.lat}`).sort())
      .toEqual(truth.pins.map((p) => `${p.type}|${p.id ?? ''}|${p.lon}|${p.lat}`).sort());
    expect(truth.pinsByType['SHARING']).toBeGreaterThan(100);
  }));

  it('with a clock, the truth of a region equals the answer of a box search', () => withSim({ world, clock: CLOCK }, async (_s, get) => {
    const r = (await get('XML_COORD_REQUEST', `${BOX}&inclFilter=1&type_0=ANY`)).body.pins;
    const truth = world.truth([...REGION], { at: NOW });
    expect(r.map((p) => `${p.type}|${p.id ?? ''}|${p.coord.lon}|${p.coord.lat}`).sort())
      .toEqual(truth.pins.map((p) => `${p.type}|${p.id ?? ''}|${p.lon}|${p.lat}`).sort());
  }));

  it('parking real time carries parkingAt\'s free places; setClock steps time', () => withSim({ world, clock: '2026-11-24T03:00:00+01:00' }, async (sim, get) => {
    const q = `parkingSearchMethod=BB&parkingBB=1&parkingBBLU=${c(REGION[0], REGION[3])}&parkingBBRL=${c(REGION[2], REGION[1])}&parkObjInfo=1&parkObjInfoRealtime=1`;
    const check = async (when: Date): Promise<number> => {
      const pins: PinJ[] = (await get('XML_COORD_REQUEST', q)).body.pins;
      const truth = new Map(parkingAt(world, when).map((p) => [p.id, p]));
      expect(pins.length).toBeGreaterThan(50);
      let free = 0;
      for (const pin of pins) {
        const p = truth.get(pin.id ?? '')!;
        expect(pin).toMatchObject({ capacity: p.capacity, realtime: { free: p.free, occupied: p.capacity! - p.free! } });
        expect(Object.keys(pin).some((k) => k.startsWith('_'))).toBe(false);
        free += p.free!;
      }
      return free;
    };
    const night = await check(new Date('2026-11-24T03:00:00+01:00'));
    sim.setClock(new Date('2026-11-24T10:00:00+01:00'));
    expect(sim.clock?.toISOString()).toBe('2026-11-24T09:00:00.000Z');
    expect(await check(new Date('2026-11-24T10:00:00+01:00'))).toBeLessThan(night * 0.5);
  }));

  it('vehicle detail as of the clock: present with availability, absent while rented', () => withSim({ world, clock: CLOCK }, async (sim, get) => {
    const detail = (id: string) => get('XML_COORD_REQUEST', `coordReqType=VEHICLEDETAIL&vehDetail=1&vehSM=ID&SharingRefId=${encodeURIComponent(id)}&vehSpec=1&vehAvail=1`);
    const present = vehiclesAt(world, NOW);
    const presentIds = new Set(present.map((v) => v.id));
    const absent = [...world.allPins(['SHARING'])].find((p) => !presentIds.has(p.id!))!;
    expect((await detail(absent.id!)).body.pins).toEqual([]);
    for (const v of [present[0]!, present.find((x) => !x.available)!]) {
      const pins = (await detail(v.id)).body.pins;
      expect(pins).toHaveLength(1);
      expect(pins[0]).toMatchObject({
        ...expected(v), availability: { available: v.available, chargePercent: v.chargePercent, fuelPercent: v.fuelPercent },
      });
    }
    // Back to arrival time: the answer is that of some instant around now.
    sim.setClock(undefined);
    expect(sim.clock).toBeUndefined();
    const before = new Map(vehiclesAt(world, new Date()).map((v) => [v.id, v]));
    const pins = (await detail(present[0]!.id)).body.pins;
    const after = new Map(vehiclesAt(world, new Date()).map((v) => [v.id, v]));
    const now = [before.get(present[0]!.id), after.get(present[0]!.id)];
    if (pins[0]) expect(now.some((v) => v && v.lon === pins[0]!.coord.lon && v.lat === pins[0]!.coord.lat)).toBe(true);
    else expect(now.some((v) => v === undefined)).toBe(true);
  }));
});
