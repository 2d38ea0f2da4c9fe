/**
 * Stop numbering of generated worlds. Issue 9 runs three deployments over one region:
 * A (seed 1, local ids from 1000000), B (seed 2, local ids from 1000000: the same ids at other
 * places) and C (seed 1, local ids from 7000000: the same places and global ids under other ids).
 * These tests check that the generator makes those relations true, and that a world with local ids
 * answers requests by its local ids.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REGION, generateWorld, SimulatorOptionError, startSimulator, type Pin, type Stop, type World,
} from '../../src/sim/index.js';
import { TODAY } from './helpers.js';

const SIZE = 3000;
const A = generateWorld({ seed: 1, size: SIZE, today: TODAY, stopIds: 'local', localIdBase: 1_000_000 });
const B = generateWorld({ seed: 2, size: SIZE, today: TODAY, stopIds: 'local', localIdBase: 1_000_000 });
const C = generateWorld({ seed: 1, size: SIZE, today: TODAY, stopIds: 'local', localIdBase: 7_000_000 });
/** A's seed numbered by global ids, as every world was before local ids. */
const G = generateWorld({ seed: 1, size: SIZE, today: TODAY });

const GLOBAL_ID = /^de:\d{5}:\d+$/;
const byGlobalId = (w: World): Map<string, Stop> => new Map(w.stops().map((s) => [s.globalId ?? '', s]));
/** Everything of a pin but its ids: where it is and what it is called. */
const place = (p: Pin | Stop): unknown => ({ name: p.name, lon: p.lon, lat: p.lat, motTypes: p.motTypes });

describe('local stop ids', () => {
  it('a stop id is localIdBase + its ordinal, its global id the de:<omc>:<n> form beside it', () => {
    const stops = [...A.allPins(['STOP'])];
    expect(stops.length).toBeGreaterThan(100);
    expect(stops.map((p) => p.id)).toEqual(stops.map((_, k) => String(1_000_000 + k)));
    for (const p of stops) {
      expect(p.key).toBe(p.id);
      expect(p.globalId).toMatch(GLOBAL_ID);
    }
    expect(new Set(stops.map((p) => p.globalId)).size).toBe(stops.length);
    // A global world's stops carry the global id as both.
    for (const s of G.stops()) expect(s.globalId).toBe(s.id);
  });

  it('the same seed gives the same places, names and global ids whatever the numbering (A, C and G)', () => {
    const global = byGlobalId(G);
    for (const w of [A, C]) {
      const stops = byGlobalId(w);
      expect([...stops.keys()].sort()).toEqual([...global.keys()].sort());
      for (const [gid, s] of stops) expect(place(s)).toEqual(place(global.get(gid)!));
      // Everything but stops is the same object under the same key.
      expect(JSON.stringify([...w.allPins()].filter((p) => p.type !== 'STOP'))).toBe(JSON.stringify([...G.allPins()].filter((p) => p.type !== 'STOP')));
    }
  });

  it('A and C: the same stops under other ids, the same lines and notices through their global ids', () => {
    const cByGlobal = byGlobalId(C);
    const aStops = A.stops();
    for (const s of aStops) expect(cByGlobal.get(s.globalId ?? '')?.id).toBe(String(Number(s.id) + 6_000_000));
    const aIds = new Set(aStops.map((s) => s.id));
    expect(C.stops().filter((s) => aIds.has(s.id))).toEqual([]);
    // Lines are the same lines (same ids: the networks are not what differs), over the same global stops.
    const globalStopsOf = (w: World, lineId: string): (string | undefined)[] => w.network.stopsOf(lineId).map((id) => w.stop(id)?.globalId);
    expect(C.lines()).toEqual(A.lines());
    for (const l of A.lines()) expect(globalStopsOf(C, l.id)).toEqual(globalStopsOf(A, l.id));
    const stopNotices = A.notices().filter((n) => n.stops.length > 0);
    expect(stopNotices.length).toBeGreaterThan(0);
    for (const n of stopNotices) {
      expect(n.stops.map((id) => A.stop(id)?.globalId)).toEqual(C.notice(n.id)?.stops.map((id) => C.stop(id)?.globalId));
    }
  });

  it('A and B: the same stop ids at other places with other names and global ids', () => {
    const aStops = A.stops(), bStops = B.stops();
    const bById = new Map(bStops.map((s) => [s.id, s]));
    const shared = aStops.filter((s) => bById.has(s.id));
    // Both number from 1000000 upwards: every id of the smaller world is an id of the other.
    expect(shared.length).toBe(Math.min(aStops.length, bStops.length));
    const movedOrRenamed = shared.filter((s) => JSON.stringify(place(s)) !== JSON.stringify(place(bById.get(s.id)!)));
    expect(movedOrRenamed.length).toBe(shared.length);
    const sameGlobal = shared.filter((s) => s.globalId === bById.get(s.id)?.globalId);
    expect(sameGlobal.length).toBeLessThan(shared.length / 10);
    // Other objects are keyed by their index, not numbered per deployment: their ids collide too.
    const bKeys = new Set([...B.allPins()].map((p) => p.key));
    const collidingPois = [...A.allPins(['POI_POINT'])].filter((p) => p.id !== undefined && bKeys.has(p.key));
    expect(collidingPois.length).toBeGreaterThan(0);
    expect(new Set(B.lines().map((l) => l.id))).toContain(A.lines()[0]?.id);
  });

  it('lookups take the local id; the global id finds the stop too, the old de: key does not', () => {
    const stop = A.stops()[17]!;
    const gid = stop.globalId!;
    expect(A.stop(stop.id)).toEqual(stop);
    expect(A.pin(stop.id)?.globalId).toBe(gid);
    expect(A.stopByGlobalId(gid)).toEqual(stop);
    expect(A.findStop(gid)).toEqual(stop);
    expect(A.findStop(stop.id)).toEqual(stop);
    expect(A.pin(gid)).toBeUndefined();
    expect(A.stop(String(Number(stop.id) + 6_000_000))).toBeUndefined();
    expect(A.findStop('1000000x')).toBeUndefined();
    expect(A.stop(`0${stop.id}`)).toBeUndefined();
    expect(A.stop(String(1_000_000 + A.stops().length))).toBeUndefined();
    // A global id that is not a stop's (another index, a POI's index) is unknown.
    const poi = [...A.allPins(['POI_POINT'])][0]!;
    expect(A.stopByGlobalId(`de:08111:${poi.key.split(':')[1] ?? ''}`)).toBeUndefined();
  });

  it('mutations address stops by local id; an added stop is found by its global id', () => {
    const m = generateWorld({ seed: 1, size: 2000, today: TODAY, stopIds: 'local', localIdBase: 500 });
    const stop = m.stops()[3]!;
    m.renamePin(stop.id, 'Umbenannt');
    expect(m.stopByGlobalId(stop.globalId!)).toMatchObject({ id: stop.id, name: 'Umbenannt' });
    m.removePin(stop.id);
    expect(m.stop(stop.id)).toBeUndefined();
    expect(m.stopByGlobalId(stop.globalId!)).toBeUndefined();
    const added = m.addPin({ type: 'STOP', id: '9999999', globalId: 'de:08111:999999', name: 'Neu', lon: 9.21, lat: 48.79 });
    expect(m.findStop('de:08111:999999')?.id).toBe(added.id);
  });

  it('the truth gives every stop pin and stop its global id; stop lines use the local ids', () => {
    const truth = A.truth(DEFAULT_REGION);
    const stopPins = truth.pins.filter((p) => p.type === 'STOP');
    expect(stopPins.length).toBe(truth.stops.length);
    for (const p of stopPins) expect(p.globalId).toBe(A.pin(p.key)?.globalId);
    expect(truth.stops.map((s) => s.globalId)).toEqual(truth.stops.map((s) => A.pin(s.id)?.globalId));
    expect(truth.pins.filter((p) => p.type !== 'STOP').every((p) => p.globalId === undefined)).toBe(true);
    const ids = new Set(truth.stops.map((s) => s.id));
    expect(truth.stopLines.length).toBeGreaterThan(0);
    for (const sl of truth.stopLines) expect(ids.has(sl.stopId)).toBe(true);
    // Stop places as a harvest of A and C must link them: the same global ids, other local ids.
    const places = (w: World): string[] => w.truth(DEFAULT_REGION).stops.map((s) => s.globalId ?? '').sort();
    expect(places(C)).toEqual(places(A));
  });

  it('rejects bad numbering options, naming the option', async () => {
    const bad = (opts: Record<string, unknown>): unknown => {
      try {
        generateWorld({ seed: 1, size: 100, ...opts });
      } catch (e) {
        return e;
      }
      return undefined;
    };
    expect(bad({ stopIds: 'dhid' })).toMatchObject({ name: 'SimulatorOptionError', option: 'stopIds' });
    expect(bad({ localIdBase: 5 })).toMatchObject({ option: 'localIdBase', message: expect.stringContaining('stopIds "local"') });
    for (const localIdBase of [-1, 1.5, Number.MAX_SAFE_INTEGER]) {
      expect(bad({ stopIds: 'local', localIdBase })).toBeInstanceOf(SimulatorOptionError);
    }
    expect(bad({ stopIds: 'local', localIdBase: 0 })).toBeUndefined();
    await expect(startSimulator({ port: 0, world: A, stopIds: 'local' })).rejects.toMatchObject({ option: 'stopIds' });
  });
});
