/**
 * Worlds the project did not design, at their real densities, from `../shared/world-data/`
 * (SOURCES.md there names every file's origin and licence): OSM POIs and parking of Herrenberg, the
 * Stuttgart POI, parking and sharing layers of stadtnavi, the VVS GTFS stops, GBFS stations, ParkAPI.
 * A world is a region, the `max` a deployment would answer with, and typed points in file order (the
 * order a server that answers in insertion order would use).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { BBox } from '../../src/tiling/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import type { World } from '../../test/tiling/harness.js';
import {
  WORLD_TYPES,
  gbfsStations,
  geojsonPoints,
  gtfsPlatforms,
  gtfsStopAreas,
  osmPoiType,
  osmSharingType,
  parkApiLots,
  stadtnaviType,
  type TypedPoint,
  type WorldType,
} from './parse.js';

export { WORLD_TYPES, type TypedPoint, type WorldType } from './parse.js';

export interface TypedWorld {
  readonly name: string;
  /** What the world is and why it is in the matrix. */
  readonly about: string;
  readonly bbox: BBox;
  /** The deployment's `maxPerRequest`. */
  readonly max: number;
  readonly points: readonly TypedPoint[];
}

/**
 * Where the shared world data lies: `$EFA_WORLD_DATA`, else a `shared/world-data` beside the checkout
 * or one level up (a worktree under `wt/`). Undefined when it is not there: the bench says so and the
 * tests that need it are skipped with that reason.
 */
export function findWorldData(): string | undefined {
  const env = process.env['EFA_WORLD_DATA'];
  if (env !== undefined && env !== '') return existsSync(join(env, 'SOURCES.md')) ? resolve(env) : undefined;
  let dir = packageRoot;
  for (let i = 0; i < 3; i++) {
    dir = dirname(dir);
    const candidate = join(dir, 'shared', 'world-data');
    if (existsSync(join(candidate, 'SOURCES.md'))) return candidate;
  }
  return undefined;
}

const inBox = (b: BBox) => (p: TypedPoint) => p.lon >= b[0] && p.lon <= b[2] && p.lat >= b[1] && p.lat <= b[3];

/** Every typed point of the data set, by source, in file order. */
export interface Sources {
  readonly stopAreas: readonly TypedPoint[];
  readonly platforms: readonly TypedPoint[];
  readonly osmPois: readonly TypedPoint[];
  readonly osmParking: readonly TypedPoint[];
  readonly osmSharing: readonly TypedPoint[];
  readonly stadtnavi: readonly TypedPoint[];
  readonly parkHerrenberg: readonly TypedPoint[];
  readonly parkReutlingen: readonly TypedPoint[];
  readonly carSharing: readonly TypedPoint[];
  readonly cargoBikes: readonly TypedPoint[];
}

export function loadSources(dir: string): Sources {
  const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
  const stops = read('vvs-herrenberg-gtfs/stops.txt');
  return {
    stopAreas: gtfsStopAreas(stops),
    platforms: gtfsPlatforms(stops),
    osmPois: geojsonPoints(read('osm-herrenberg/osm-pois.geojson'), 'osm', osmPoiType),
    osmParking: geojsonPoints(read('osm-herrenberg/osm-parking.geojson'), 'osm', () => 'PARKING'),
    osmSharing: geojsonPoints(read('osm-herrenberg/osm-sharing-and-charging.geojson'), 'osm', osmSharingType),
    stadtnavi: geojsonPoints(read('stadtnavi-stuttgart-pois-2019/stuttgart-pois-parking-sharing.geojson'), 'stadtnavi', stadtnaviType),
    parkHerrenberg: parkApiLots(read('parkapi/parkapi-herrenberg.json'), 'parkapi-herrenberg'),
    parkReutlingen: parkApiLots(read('parkapi/parkapi-reutlingen.json'), 'parkapi-reutlingen'),
    carSharing: [
      ...gbfsStations(read('stadtnavi-static-gbfs/car-sharing/station_information.json'), 'stadtmobil-stuttgart'),
      ...gbfsStations(read('stadtnavi-static-gbfs/car-sharing-stadtmobil-pforzheim/station_information.json'), 'stadtmobil-karlsruhe'),
      ...gbfsStations(read('stadtnavi-static-gbfs/car-sharing-renningen/station_information.json'), 'renningen'),
      ...gbfsStations(read('stadtnavi-static-gbfs/car-sharing-teilauto-neckar-alb/station_information.json'), 'teilauto'),
    ],
    cargoBikes: ['stadtrad', 'alf', 'bananologen', 'gueltstein-mobil'].flatMap((s) =>
      gbfsStations(read(`stadtnavi-static-gbfs/${s}/station_information.json`), s),
    ),
  };
}

function world(name: string, about: string, bbox: BBox, max: number, sources: readonly (readonly TypedPoint[])[]): TypedWorld {
  return { name, about, bbox, max, points: sources.flat().filter(inBox(bbox)) };
}

/** The matrix's worlds, smallest first. */
export function sharedWorlds(dir: string): TypedWorld[] {
  const s = loadSources(dir);
  const herrenbergAll = [s.stopAreas, s.osmPois, s.osmParking, s.osmSharing, s.parkHerrenberg, s.carSharing, s.cargoBikes];
  return [
    world('herrenberg-centre', 'the old town and station of Herrenberg: every type of the OSM extract, a floor of a few requests', [8.855, 48.585, 8.885, 48.605], 150, herrenbergAll),
    world('herrenberg', 'the OSM extract around Herrenberg (POIs, parking, sharing) with the VVS stops in it: the small world of issue 17', [8.69, 48.52, 8.94, 48.66], 150, herrenbergAll),
    world('stuttgart', 'Stuttgart: VVS stops and platforms, the stadtnavi parking, POI and sharing layers, Stadtmobil stations', [9.05, 48.68, 9.42, 48.87], 150, [
      s.stopAreas,
      s.platforms,
      s.stadtnavi,
      s.carSharing,
    ]),
    world('vvs', 'the whole VVS network: stops everywhere, POIs and parking only where OSM layers exist (types that do not co-locate)', [8.4, 47.65, 11.09, 49.81], 150, [
      s.stopAreas,
      s.osmPois,
      s.osmParking,
      s.osmSharing,
      s.stadtnavi,
      s.parkHerrenberg,
      s.parkReutlingen,
      s.carSharing,
      s.cargoBikes,
    ]),
  ];
}

/** The whole world as the harness sees it: what an unfiltered request (`type_0=ANY`) answers. */
export function allTypes(w: TypedWorld): World {
  return pointsWorld(w.name, w.bbox, w.points);
}

/** One type alone: what a type-filtered request answers. */
export function ofType(w: TypedWorld, type: WorldType): World {
  return pointsWorld(`${w.name} ${type}`, w.bbox, w.points.filter((p) => p.type === type));
}

export function typesOf(w: TypedWorld): WorldType[] {
  return WORLD_TYPES.filter((t) => w.points.some((p) => p.type === t));
}

function pointsWorld(name: string, bbox: BBox, points: readonly TypedPoint[]): World {
  return { name, region: { bbox }, lon: Float64Array.from(points, (p) => p.lon), lat: Float64Array.from(points, (p) => p.lat) };
}
