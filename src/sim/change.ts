/** A world one night later: a small share of its pins removed, moved or added, deterministically. */
import { SimulatorOptionError } from './errors.js';
import { hash32, makeRng } from './rng.js';
import type { Pin, PinType } from './types.js';
import type { World } from './world.js';

/** Kinds a nightly CoordInfo sweep stores; vehicles and parking change by the minute, not by the night. */
const NIGHTLY: ReadonlySet<PinType> = new Set(['STOP', 'POI_POINT', 'POI_AREA', 'GIS_POINT', 'BUS_POINT']);

export interface WorldChange {
  readonly removed: number;
  readonly moved: number;
  readonly added: number;
}

/**
 * Changes `share` (0..1) of the world's nightly pins, as a deployment does between two nights: a
 * third removed, a third moved by up to about 200 m, a third added beside an existing pin of the
 * same kind. The same world, share and seed always give the same change.
 */
export function changeWorld(world: World, share: number, seed = 1): WorldChange {
  if (!(share >= 0 && share <= 1)) throw new SimulatorOptionError('change', `expected a share between 0 and 1, got ${share}`);
  const pins: Pin[] = [];
  for (const p of world.allPins()) if (NIGHTLY.has(p.type)) pins.push(p);
  pins.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const n = Math.round(pins.length * share);
  const rng = makeRng(hash32(seed, 0xc4a9e));
  // A partial Fisher-Yates shuffle: n distinct pins.
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rng() * (pins.length - i));
    [pins[i], pins[j]] = [pins[j] as Pin, pins[i] as Pin];
  }
  const out = { removed: 0, moved: 0, added: 0 };
  for (let i = 0; i < n; i++) {
    const p = pins[i] as Pin;
    const dLon = (rng() - 0.5) * 0.005;
    const dLat = (rng() - 0.5) * 0.0035;
    const lon = Math.round((p.lon + dLon) * 1e6) / 1e6;
    const lat = Math.round((p.lat + dLat) * 1e6) / 1e6;
    if (i % 3 === 0) {
      world.removePin(p.key);
      out.removed++;
    } else if (i % 3 === 1) {
      world.movePin(p.key, lon, lat);
      out.moved++;
    } else {
      const id = `changed:${seed}:${i}`;
      world.addPin({ type: p.type, id, name: `${p.name} (new)`, lon, lat });
      out.added++;
    }
  }
  return out;
}
