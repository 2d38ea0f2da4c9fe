import { describe, expect, it } from 'vitest';
import { generateWorld, haversineM, vehiclesAt } from '../../src/sim/index.js';
import { TODAY, c, withSim } from './helpers.js';

const world = generateWorld({ seed: 1, size: 5000, today: TODAY });
const BOX = (a: number, b: number, x: number, y: number): string => `boundingBox&boundingBoxLU=${c(a, y)}&boundingBoxRL=${c(x, b)}`;

describe('CoordInfo', () => {
  it('box mode returns every pin in the box, edges inclusive, no parking under ANY', () => withSim({ world }, async (_s, get) => {
    const stop = [...world.allPins(['STOP'])][5]!;
    const r = await get('XML_COORD_REQUEST', `${BOX(stop.lon, stop.lat, stop.lon + 0.01, stop.lat + 0.01)}&inclFilter=1&type_0=ANY`);
    expect(r.status).toBe(200);
    const t = world.truth([stop.lon, stop.lat, stop.lon + 0.01, stop.lat + 0.01]);
    expect(r.body.pins.length).toBe(t.pins.length);
    expect(r.body.pins.some((p) => p.type === 'PARKING')).toBe(false);
    const hit = r.body.pins.find((p) => p.id === stop.key)!;
    expect(hit.coord).toEqual({ lat: stop.lat, lon: stop.lon });
    expect(hit.motTypes).toBe(world.stop(stop.key)!.motTypes.join(','));
  }));

  it('circle mode: per-block radius by great-circle distance, sorted by distance, max caps', () => withSim({ world }, async (_s, get) => {
    const r = await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.777)}&inclFilter=1&type_0=STOP&radius_0=400&type_1=POI_POINT&radius_1=150`);
    expect(r.body.pins.length).toBeGreaterThan(3);
    for (const p of r.body.pins) {
      const d = haversineM(9.18, 48.777, p.coord.lon, p.coord.lat);
      expect(d).toBeLessThanOrEqual(p.type === 'STOP' ? 400 : 150);
      expect(['STOP', 'POI_POINT']).toContain(p.type);
    }
    const expected = [...world.pinsInCircle(9.18, 48.777, 400, ['STOP'])].length + [...world.pinsInCircle(9.18, 48.777, 150, ['POI_POINT'])].length;
    expect(r.body.pins.length).toBe(expected);
    const ds = r.body.pins.map((p) => p.distance);
    expect([...ds].sort((a, b) => a - b)).toEqual(ds);
    const capped = await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.777)}&inclFilter=1&type_0=STOP&radius_0=400&type_1=POI_POINT&radius_1=150&max=3`);
    expect(capped.body.pins).toEqual(r.body.pins.slice(0, 3));
  }));

  it('MOT filters select stops', () => withSim({ world }, async (_s, get) => {
    const q = `${BOX(9.05, 48.7, 9.3, 48.85)}&inclFilter=1&type_0=STOP`;
    const all = (await get('XML_COORD_REQUEST', q)).body.pins;
    const bus = (await get('XML_COORD_REQUEST', `${q}&inclMOT_0=5`)).body.pins;
    const noBus = (await get('XML_COORD_REQUEST', `${q}&exclMOT_0=5`)).body.pins;
    expect(bus.length).toBeGreaterThan(0);
    expect(bus.every((p) => p.motTypes!.split(',').includes('5'))).toBe(true);
    expect(noBus.every((p) => p.motTypes!.split(',').some((m) => m !== '5'))).toBe(true);
    expect(all.length).toBe(bus.length + noBus.length - bus.filter((p) => p.motTypes !== '5').length);
  }));

  it('parking only with the parking box, filtered by bitmask; realtime needs parkObjInfo', () => withSim({ world }, async (_s, get) => {
    const pb = `parkingSearchMethod=BB&parkingBB=1&parkingBBLU=${c(9.05, 48.85)}&parkingBBRL=${c(9.3, 48.7)}`;
    const all = (await get('XML_COORD_REQUEST', `${pb}&parkingObjectType=-1`)).body.pins;
    expect(all.length).toBe(world.truth([9.05, 48.7, 9.3, 48.85], { parking: true }).parking.length);
    expect(all.every((p) => p.type === 'PARKING' && typeof p.capacity === 'number' && p.realtime === undefined)).toBe(true);
    const multi = (await get('XML_COORD_REQUEST', `${pb}&parkingObjectType=1`)).body.pins;
    expect(multi.length).toBeGreaterThan(0);
    expect(multi.every((p) => p.parkingObjectType === 1)).toBe(true);
    const rt = (await get('XML_COORD_REQUEST', `${pb}&parkObjInfo=1&parkObjInfoRealtime=1&max=5`)).body.pins;
    expect(rt[0]?.realtime).toBeDefined();
    const rtOnly = (await get('XML_COORD_REQUEST', `${pb}&parkObjInfoRealtime=1&max=5`)).body.pins;
    expect(rtOnly[0]?.realtime).toBeUndefined();
  }));

  it('vehicle detail returns one vehicle as of the clock, honouring filters', () => withSim({ world, clock: '2026-11-24T15:00:00+01:00' }, async (_s, get) => {
    const v = vehiclesAt(world, new Date('2026-11-24T15:00:00+01:00'))[0]!;
    const r = await get('XML_COORD_REQUEST', `coordReqType=VEHICLEDETAIL&vehDetail=1&vehSM=ID&SharingRefId=${encodeURIComponent(v.id)}&vehSpec=1&vehAvail=1`);
    expect(r.body.pins).toHaveLength(1);
    expect(r.body.pins[0]).toMatchObject({ type: 'SHARING', id: v.id, vehicleType: v.kind, coord: { lon: v.lon, lat: v.lat } });
    expect(r.body.pins[0]!.specification).toBeDefined();
    const other = (['ELECTRIC', 'COMBUSTION', 'HYBRID'] as const).find((e) => e !== v.engine)!;
    expect((await get('XML_COORD_REQUEST', `coordReqType=VEHICLEDETAIL&SharingRefId=${v.id}&vehEngineType=${other}`)).body.pins).toHaveLength(0);
    expect((await get('XML_COORD_REQUEST', 'coordReqType=VEHICLEDETAIL&SharingRefId=bad')).status).toBe(400);
  }));

  it('rejects bad input with 400 naming the parameter, unknown paths with 404', () => withSim({ world }, async (s, get) => {
    const bad = await get('XML_COORD_REQUEST', `boundingBox&boundingBoxLU=48.78:9.17&boundingBoxRL=${c(9.18, 48.77)}&inclFilter=1&type_0=ANY`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^boundingBoxLU: expected <lon>:<lat>:WGS84\[dd\.ddddd\]/);
    expect((await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.77)}&inclFilter=1&type_0=HOUSE`)).body.error.message).toMatch(/^type_0:/);
    expect((await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.77)}&type_0=STOP`)).body.error.message).toMatch(/^inclFilter:/);
    expect((await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.77)}&inclFilter=1&type_0=STOP&deadline=2026-11-22`)).body.error.message).toMatch(/^deadline:/);
    expect((await get('XML_COORD_REQUEST', `coord=${c(9.18, 48.77)}&inclFilter=1&type_0=STOP&max=x`)).status).toBe(400);
    expect((await get('XML_COORDINFO_REQUEST', `coord=${c(9.18, 48.77)}`)).status).toBe(404);
    expect((await fetch(`${s.url}/XML_COORD_REQUEST`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${s.url}/XML_STOPFINDER_REQUEST?name_sf=x&type_sf=any`)).status).toBe(400);
  }));

  it('answers byte-identically for the same seed and size', async () => {
    const q = `${BOX(9.15, 48.76, 9.2, 48.79)}&inclFilter=1&type_0=ANY&max=200`;
    const a = await withSim({ seed: 9, size: 3000 }, async (_s, get) => (await get('XML_COORD_REQUEST', q)).text);
    const b = await withSim({ seed: 9, size: 3000 }, async (_s, get) => (await get('XML_COORD_REQUEST', q)).text);
    expect(a.length).toBeGreaterThan(1000);
    expect(a).toBe(b);
  });
});
