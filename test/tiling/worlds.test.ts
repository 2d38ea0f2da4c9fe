/**
 * Night one and night two on worlds the project did not design (issue 17 point 7): the shared
 * world-data of Herrenberg and Stuttgart at their real densities, under every answer order, counted
 * with the harness's fake box search. Ratios of request counts, never times.
 */
import { describe, expect, it } from 'vitest';
import { findWorldData, sharedWorlds, typesOf, type TypedWorld } from '../../bench/worlds/index.js';
import { colocatedWorlds } from '../../bench/worlds/generated.js';
import { pilotNights, todayNights } from '../../bench/worlds/night-one.js';
import { NIGHT_ONE_BOUNDS } from '../../bench/tiling-worlds.js';
import { ORDERS, type Order } from './harness.js';

const dir = findWorldData();
const worlds = dir === undefined ? [] : sharedWorlds(dir);
const named = (name: string): TypedWorld => {
  const w = worlds.find((x) => x.name === name);
  if (w === undefined) throw new Error(`no world ${name}`);
  return w;
};
const count = (w: TypedWorld): Record<string, number> =>
  Object.fromEntries(typesOf(w).map((t) => [t, w.points.filter((p) => p.type === t).length]));

/** The orders under which today's splitter meets the bound on each world (docs/benchmarks.md, worlds). */
const MET: Record<string, readonly Order[]> = {
  'herrenberg-centre': ['distance', 'random'],
  herrenberg: ['id', 'random'],
  stuttgart: ['random'],
};

// The data lie outside the repository (../shared/world-data, or $EFA_WORLD_DATA); without them there is nothing to measure.
describe.skipIf(dir === undefined)('tiling on shared worlds (needs ../shared/world-data or $EFA_WORLD_DATA)', () => {
  it('builds the worlds at their real densities, typed as the API answers them', async () => {
    expect(count(named('herrenberg'))).toEqual({ STOP: 179, POI_POINT: 2653, PARKING: 1376, SHARING: 13 });
    expect(count(named('stuttgart'))).toEqual({ STOP: 1290, BUS_POINT: 2847, POI_POINT: 223, PARKING: 748, SHARING: 357 });
    // The small world: a floor below 30 requests.
    const small = named('herrenberg-centre');
    expect(Math.ceil(small.points.length / small.max)).toBeLessThan(30);
    for (const w of worlds) for (const p of w.points) expect(p.lon >= w.bbox[0] && p.lon <= w.bbox[2] && p.lat >= w.bbox[1] && p.lat <= w.bbox[3]).toBe(true);
  });

  for (const name of ['herrenberg-centre', 'herrenberg', 'stuttgart']) {
    it(`${name}: every object proven by an uncapped leaf of its type, night two within 1.15x of the floor, the pilot never above today`, async () => {
      const w = named(name);
      for (const order of ORDERS) {
        const today = await todayNights(w, order);
        const pilot = await pilotNights(w, order);
        expect({ order, unproven: pilot.unproven }).toEqual({ order, unproven: 0 });
        expect({ order, unproven: today.unproven }).toEqual({ order, unproven: 0 });
        expect(pilot.nightTwo / pilot.floor, `${name} ${order} night two`).toBeLessThanOrEqual(1.15);
        expect(pilot.nightOne, `${name} ${order} pilot against today`).toBeLessThanOrEqual(today.nightOne);
      }
    });

    it(`${name}: today's splitter holds issue 17's night-one bounds (types that do not co-locate) under ${MET[name]!.join(', ')}`, async () => {
      // Random order: a child's answer recaptures some of its parent's hits, which sizes it, and before
      // the first uncapped answer a sample-like capped tile is taken to hold 2 x max (1.6-2.1x here, from
      // 2.3-2.6x). Insertion, distance on herrenberg, stuttgart and vvs, and id on herrenberg-centre and stuttgart stay
      // above, counting the step's confirming requests (docs/benchmarks.md, worlds).
      const w = named(name);
      for (const order of MET[name]!) {
        const t = await todayNights(w, order);
        expect(t.nightOne / t.floor, `${name} ${order} night one`).toBeLessThanOrEqual(NIGHT_ONE_BOUNDS[order]);
      }
    });

    it(`${name}: under id order (a capped answer is a few whole municipalities) night one stays within 2.5x of the floor`, async () => {
      // Today's splitter takes 2.9-3.1x here; the first answer shows POIs lying where parking lies (platforms
      // where stops lie), and planning those from the pilot's pins brings the night to 2.1-2.4x.
      const p = await pilotNights(named(name), 'id');
      expect(p.pilot).toBeDefined();
      expect(p.nightOne / p.floor).toBeLessThanOrEqual(2.5);
    });
  }
});

// Controls: the harness's own worlds with types dealt at random, so every type follows one law.
// Where types co-locate, issue 17 asks ≤ 2.2x under every order, with 1.7x as the goal; today's
// splitter takes 1.8-3.2x there.
describe('the pilot where types co-locate', () => {
  const controls = colocatedWorlds();
  for (const w of controls) {
    it(`${w.name}: night one within 1.75x of the floor under every order, every object proven, night two within 1.15x`, async () => {
      for (const order of ORDERS) {
        const p = await pilotNights(w, order);
        expect(p.pilot, `${w.name} ${order}`).toBe('STOP');
        expect(p.unproven).toBe(0);
        expect(p.nightOne / p.floor, `${w.name} ${order} night one`).toBeLessThanOrEqual(1.75);
        expect(p.nightTwo / p.floor, `${w.name} ${order} night two`).toBeLessThanOrEqual(1.15);
      }
    });
  }
});
