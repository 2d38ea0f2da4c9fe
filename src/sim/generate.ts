/** generateWorld: a deterministic, city-shaped world from a seed and a pin count. */
import { todayUtc } from './dates.js';
import { pointInRing } from './geo.js';
import { generateLines, generateNotices, generateProviders } from './generate-extras.js';
import { SimulatorOptionError } from './errors.js';
import { generateStations } from './generate-stations.js';
import { GeneratedPins, typeCodeFor, type StopNumbering } from './generate-pins.js';
import { Network } from './network.js';
import { gaussian, hash32, makeRng } from './rng.js';
import { DEFAULT_LOCAL_ID_BASE, PIN_TYPES, STOP_ID_SCHEMES, type BBox, type StopIdScheme } from './types.js';
import { World } from './world.js';

/** Default region: Stuttgart. lat ≈ 48.7 and lon ≈ 9.1 differ clearly, which exposes swapped axes. */
export const DEFAULT_REGION: BBox = [9.05, 48.7, 9.3, 48.85];
const CENTRES: readonly (readonly [number, number])[] = [
  [9.18, 48.777], [9.1, 48.74], [9.22, 48.815], [9.26, 48.725], [9.09, 48.82],
];
const STOP = PIN_TYPES.indexOf('STOP');
const SHARING = PIN_TYPES.indexOf('SHARING');

export interface GenerateOptions {
  readonly seed: number;
  readonly size: number;
  readonly today?: string;
  /**
   * Stop ids: `global` (default, `de:08111:6008`) or `local` (`localIdBase` + the stop's ordinal,
   * the global id kept beside it). Places, names, lines and global ids depend only on seed and size.
   */
  readonly stopIds?: StopIdScheme;
  /** First local stop id (default DEFAULT_LOCAL_ID_BASE); only with `stopIds: 'local'`. */
  readonly localIdBase?: number;
  /** Sharing stations (bike and car providers' areas); default none, so worlds without stations answer as they always did. */
  readonly stations?: number;
}

export function generateWorld(opts: GenerateOptions): World {
  const { seed, size } = opts;
  const today = opts.today ?? todayUtc();
  const rng = makeRng(seed);
  const providers = generateProviders(makeRng(hash32(seed, 7)), CENTRES);
  const pins = new GeneratedPins(size, seed, CENTRES[0] ?? [9.18, 48.777], () => providers, stopNumbering(opts));
  const [minLon, minLat, maxLon, maxLat] = DEFAULT_REGION;
  for (let i = 0; i < size; i++) {
    let x: number, y: number;
    do {
      const r = rng();
      if (r < 0.25) {
        x = minLon + rng() * (maxLon - minLon);
        y = minLat + rng() * (maxLat - minLat);
      } else {
        // Dense centre (45 %) and four smaller sub-centres (30 %).
        const c = r < 0.7 ? CENTRES[0] : CENTRES[1 + Math.floor(rng() * 4)];
        const spread = r < 0.7 ? 1 : 0.5;
        x = (c?.[0] ?? 9.18) + gaussian(rng) * 0.014 * spread;
        y = (c?.[1] ?? 48.777) + gaussian(rng) * 0.009 * spread;
      }
    } while (x < minLon || x > maxLon || y < minLat || y > maxLat);
    pins.lon[i] = Math.round(x * 1e6) / 1e6;
    pins.lat[i] = Math.round(y * 1e6) / 1e6;
    const kind = typeCodeFor(seed, i);
    pins.kind[i] = kind;
    if (kind === SHARING) pins.aux[i] = assignArea(providers, hash32(seed, i, 3), pins.lon[i] ?? 0, pins.lat[i] ?? 0);
  }

  pins.numberStops();
  const stopIdx: number[] = [];
  for (let i = 0; i < size; i++) if (pins.kind[i] === STOP) stopIdx.push(i);
  const stopPins = stopIdx.map((i) => pins.pinAt(i));
  const lines = generateLines(makeRng(hash32(seed, 11)), {
    ids: stopPins.map((p) => p.key),
    names: stopPins.map((p) => p.name),
    lon: Float64Array.from(stopPins, (p) => p.lon),
    lat: Float64Array.from(stopPins, (p) => p.lat),
  });
  const served = new Set(lines.flatMap((l) => l.stops));
  for (const i of stopIdx) if (served.has(pins.pinAt(i).key)) pins.aux[i] = 1;
  const notices = generateNotices(makeRng(hash32(seed, 13)), lines, today);
  const ids = pins.stopIdScheme === 'local' ? ` stopIds=local localIdBase=${opts.localIdBase ?? DEFAULT_LOCAL_ID_BASE}` : '';
  return new World({
    pins, network: new Network(lines), notices, providers, today,
    origin: `generated seed=${seed} size=${size}${ids}${opts.stations ? ` stations=${opts.stations}` : ''}`, seed,
    stations: generateStations(makeRng(hash32(seed, 17)), providers, opts.stations ?? 0),
  });
}

function stopNumbering(opts: GenerateOptions): StopNumbering {
  const scheme = opts.stopIds ?? 'global';
  if (!STOP_ID_SCHEMES.includes(scheme)) {
    throw new SimulatorOptionError('stopIds', `expected one of ${STOP_ID_SCHEMES.join(', ')}, got "${String(scheme)}"`);
  }
  if (scheme === 'global') {
    if (opts.localIdBase !== undefined) throw new SimulatorOptionError('localIdBase', 'applies only with stopIds "local"');
    return { scheme };
  }
  const base = opts.localIdBase ?? DEFAULT_LOCAL_ID_BASE;
  // Every stop's id must stay an exact integer: the highest is base + size - 1.
  if (!Number.isSafeInteger(base) || base < 0 || !Number.isSafeInteger(base + opts.size)) {
    throw new SimulatorOptionError('localIdBase', `expected a non-negative integer below ${Number.MAX_SAFE_INTEGER - opts.size}, got ${base}`);
  }
  return { scheme, base };
}

/** Provider by hash; the area of that provider containing the vehicle, else one by hash (vehicles stray). */
function assignArea(providers: readonly { areas: readonly { polygon: Parameters<typeof pointInRing>[2] }[] }[], h: number, lon: number, lat: number): number {
  const p = h % providers.length;
  const areas = providers[p]?.areas ?? [];
  let a = areas.findIndex((ar) => pointInRing(lon, lat, ar.polygon));
  if (a < 0) a = (h >>> 8) % Math.max(1, areas.length);
  return (p << 8) | a;
}
