/**
 * The tiling harness's worlds (clustered, regional, uniform, lattice) and its fake CoordInfo box
 * search in the four answer orders. No I/O, no vitest (bench/tiling.ts reuses it through harness.ts).
 */
import { METRES_PER_DEG_LAT, metresPerDegLon, snapEdge } from '../../src/tiling/geo.js';
import type { BBox, Point, Region } from '../../src/tiling/index.js';
import { hash32, makeRng } from '../../src/sim/rng.js';

export const STUTTGART: BBox = [9.05, 48.7, 9.3, 48.85];

export interface World {
  readonly name: string;
  readonly region: Region;
  readonly lon: Float64Array;
  readonly lat: Float64Array;
}

/** The simulator's seeded generator, so the harness worlds are as reproducible as the simulator's. */
export const rng: (seed: number) => () => number = makeRng;

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

interface Cluster {
  readonly lon: number;
  readonly lat: number;
  /** Standard deviation in metres. */
  readonly sigmaM: number;
  readonly share: number;
}

/** A city: a dense core, a few satellite towns of different spreads, and a thin uniform background. */
export const STUTTGART_CLUSTERS: readonly Cluster[] = [
  { lon: 9.18, lat: 48.778, sigmaM: 900, share: 0.3 },
  { lon: 9.12, lat: 48.74, sigmaM: 1800, share: 0.18 },
  { lon: 9.255, lat: 48.81, sigmaM: 400, share: 0.1 },
  { lon: 9.215, lat: 48.725, sigmaM: 2800, share: 0.14 },
  { lon: 9.08, lat: 48.83, sigmaM: 1200, share: 0.08 },
];

export function clusteredWorld(n = 50_000, seed = 1, bbox: BBox = STUTTGART, clusters = STUTTGART_CLUSTERS): World {
  const rand = rng(seed);
  const lon = new Float64Array(n);
  const lat = new Float64Array(n);
  const kx = metresPerDegLon((bbox[1] + bbox[3]) / 2);
  for (let i = 0; i < n; i++) {
    let x = 0;
    let y = 0;
    do {
      let pick = rand();
      const c = clusters.find((cl) => (pick -= cl.share) < 0);
      if (c === undefined) {
        x = bbox[0] + rand() * (bbox[2] - bbox[0]);
        y = bbox[1] + rand() * (bbox[3] - bbox[1]);
      } else {
        x = c.lon + (gaussian(rand) * c.sigmaM) / kx;
        y = c.lat + (gaussian(rand) * c.sigmaM) / METRES_PER_DEG_LAT;
      }
      // Stored pins come back with the server's 5 decimals, so worlds use them too.
      x = snapEdge(x);
      y = snapEdge(y);
    } while (x < bbox[0] || x > bbox[2] || y < bbox[1] || y > bbox[3]);
    lon[i] = x;
    lat[i] = y;
  }
  return { name: 'clustered', region: { bbox }, lon, lat };
}

/**
 * A county-sized region: several towns of different sizes and spreads, long sparse stretches between
 * them, and a background that is thin everywhere.
 */
export const REGIONAL_BBOX: BBox = [8.7, 48.5, 9.7, 49.1];
export const REGIONAL_CLUSTERS: readonly Cluster[] = [
  { lon: 9.18, lat: 48.78, sigmaM: 2500, share: 0.3 },
  { lon: 9.19, lat: 48.78, sigmaM: 700, share: 0.12 },
  { lon: 8.9, lat: 48.6, sigmaM: 1500, share: 0.1 },
  { lon: 9.55, lat: 48.95, sigmaM: 1200, share: 0.08 },
  { lon: 9.0, lat: 49.02, sigmaM: 3000, share: 0.1 },
  { lon: 9.4, lat: 48.62, sigmaM: 600, share: 0.05 },
  { lon: 8.8, lat: 48.9, sigmaM: 5000, share: 0.1 },
];

export function regionalWorld(n = 60_000, seed = 11): World {
  return { ...clusteredWorld(n, seed, REGIONAL_BBOX, REGIONAL_CLUSTERS), name: 'regional' };
}

export function uniformWorld(n = 20_000, seed = 2, bbox: BBox = STUTTGART): World {
  const rand = rng(seed);
  const lon = new Float64Array(n);
  const lat = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lon[i] = snapEdge(bbox[0] + rand() * (bbox[2] - bbox[0]));
    lat[i] = snapEdge(bbox[1] + rand() * (bbox[3] - bbox[1]));
  }
  return { name: 'uniform', region: { bbox }, lon, lat };
}

/** Pins on a lattice whose lines coincide with grid edges, region corners and outer max edges. */
export function latticeWorld(step = 0.0025, bbox: BBox = [9.1, 48.75, 9.2, 48.8]): World {
  const xs: number[] = [];
  const ys: number[] = [];
  const nx = Math.round((bbox[2] - bbox[0]) / step);
  const ny = Math.round((bbox[3] - bbox[1]) / step);
  for (let i = 0; i <= nx; i++) {
    for (let j = 0; j <= ny; j++) {
      xs.push(snapEdge(bbox[0] + i * step));
      ys.push(snapEdge(bbox[1] + j * step));
    }
  }
  return { name: 'lattice', region: { bbox }, lon: Float64Array.from(xs), lat: Float64Array.from(ys) };
}

export function withRegion(world: World, region: Region, name: string): World {
  return { ...world, name, region };
}

export function pointAt(w: World, i: number): Point {
  return { lon: w.lon[i]!, lat: w.lat[i]! };
}

/**
 * Which hits a capped answer keeps. The order is not documented, so the tiling is measured under the
 * orders a real server plausibly uses:
 * - `distance`: nearest to the box centre first (the simulator's default, EFA's usual look);
 * - `id`: by id, where ids are numbered municipality by municipality (as `de:08111:...` stop ids are):
 *   a capped answer is every pin of a few whole municipalities and nothing elsewhere;
 * - `insertion`: the order the pins were loaded in (for these generated worlds, unrelated to place);
 * - `random`: a fresh shuffle per request.
 */
export const ORDERS = ['distance', 'id', 'insertion', 'random'] as const;
export type Order = (typeof ORDERS)[number];

/** Municipality cells for `id` order, about 1.5 km x 1.7 km. */
const MUNICIPALITY_DEG = 0.02;
const idKeys = new WeakMap<World, Float64Array>();

function idKeysOf(w: World): Float64Array {
  const cached = idKeys.get(w);
  if (cached) return cached;
  const rand = rng(w.lon.length ^ 0x5eed);
  const codes = new Map<string, number>();
  const keys = new Float64Array(w.lon.length);
  for (let i = 0; i < w.lon.length; i++) {
    const cell = `${Math.floor(w.lon[i]! / MUNICIPALITY_DEG)}:${Math.floor(w.lat[i]! / MUNICIPALITY_DEG)}`;
    let code = codes.get(cell);
    if (code === undefined) {
      code = Math.floor(rand() * 1e6);
      codes.set(cell, code);
    }
    keys[i] = code * 1e6 + rand() * 1e6;
  }
  idKeys.set(w, keys);
  return keys;
}

/** The fake CoordInfo box search: every pin inside the closed box in `order`, cut at `max`. */
export function queryBox(w: World, b: BBox, max: number, order: Order = 'distance'): number[] {
  const found: number[] = [];
  for (let i = 0; i < w.lon.length; i++) {
    const x = w.lon[i]!;
    const y = w.lat[i]!;
    if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]) found.push(i);
  }
  if (found.length <= max) return found;
  const key = new Float64Array(w.lon.length);
  if (order === 'distance') {
    const cx = (b[0] + b[2]) / 2;
    const cy = (b[1] + b[3]) / 2;
    const kx = metresPerDegLon(cy);
    for (const i of found) key[i] = Math.hypot((w.lon[i]! - cx) * kx, (w.lat[i]! - cy) * METRES_PER_DEG_LAT);
  } else if (order === 'id') {
    const ids = idKeysOf(w);
    for (const i of found) key[i] = ids[i]!;
  } else if (order === 'random') {
    const seed = hash32(...b.map((v) => Math.round(v * 1e5)));
    for (const i of found) key[i] = hash32(seed, i);
  } else {
    for (const i of found) key[i] = i;
  }
  found.sort((p, q) => key[p]! - key[q]! || p - q);
  return found.slice(0, max);
}
