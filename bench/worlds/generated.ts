/**
 * Controls for the shared worlds: the harness's generated worlds with types dealt out at random
 * shares, so every type follows the same spatial law (they co-locate exactly, as issue 17 point 7's
 * own measurement assumed), and one where stops and POIs follow different laws.
 */
import { regionBBox } from '../../src/tiling/index.js';
import { clusteredWorld, regionalWorld, rng, type World } from '../../test/tiling/harness.js';
import type { TypedPoint, WorldType } from './parse.js';
import type { TypedWorld } from './index.js';

function deal(w: World, shares: readonly (readonly [WorldType, number])[], seed: number): TypedPoint[] {
  const rand = rng(seed);
  const out: TypedPoint[] = [];
  for (let i = 0; i < w.lon.length; i++) {
    let pick = rand();
    const type = (shares.find(([, s]) => (pick -= s) < 0) ?? shares[shares.length - 1]!)[0];
    out.push({ id: `${w.name}:${i}`, type, lon: w.lon[i]!, lat: w.lat[i]! });
  }
  return out;
}

const SHARES: readonly (readonly [WorldType, number])[] = [
  ['STOP', 0.1],
  ['PARKING', 0.3],
  ['POI_POINT', 0.6],
];

/** Types sharing one law: the clustered and the regional worlds of bench/tiling.ts. */
export function colocatedWorlds(): TypedWorld[] {
  const c = clusteredWorld(50_000, 1);
  const r = regionalWorld(60_000, 11);
  return [
    { name: 'gen-clustered', about: 'the harness clustered world, types dealt at random (co-located)', bbox: regionBBox(c.region), max: 500, points: deal(c, SHARES, 7) },
    { name: 'gen-regional', about: 'the harness regional world, types dealt at random (co-located)', bbox: regionBBox(r.region), max: 500, points: deal(r, SHARES, 8) },
  ];
}
