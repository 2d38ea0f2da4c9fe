/**
 * Ground truth for end-to-end tests: what an exhaustive sweep of a region must produce.
 * Plain arrays, sorted by key, so tests can compare them with database rows directly.
 */
import { inBox, pointInLonLatRing } from './geo.js';
import { vehiclesInBox } from './moving/vehicles.js';
import type { World } from './world.js';
import type { BBox, Line, Notice, ObjectType, Pin, PinType, Provider, SharingStation, Stop } from './types.js';

type Ring = readonly (readonly number[])[];
export type TruthRegion =
  | BBox
  | { readonly type: 'Polygon'; readonly coordinates: readonly Ring[] }
  | { readonly type: 'MultiPolygon'; readonly coordinates: readonly (readonly Ring[])[] };

export interface TruthOptions {
  /** Object types as swept (`type_<i>`); default ANY (every kind but parking). */
  readonly types?: readonly ObjectType[];
  /** Also list parking objects (a sweep that used the parking filters). */
  readonly parking?: boolean;
  /** Date for current notices; default the world's today. */
  readonly date?: string;
  /**
   * A clock: sharing vehicles as the moving world has them then (vehiclesAt), as a sweep against a
   * simulator with that clock must find them. Without it, vehicles stand at their static homes.
   */
  readonly at?: Date;
}

/**
 * A pin as a sweep must store it: the world's pin without its extra attributes. A STOP carries its
 * `globalId` (IFOPT / DHID) where the world knows one: equal to `id` with global stop ids, the
 * `de:<omc>:<n>` form beside a local `id` with local ones. `stops[].globalId` is the same value.
 */
export type TruthPin = Pick<Pin, 'key' | 'type' | 'id' | 'globalId' | 'name' | 'lon' | 'lat'>;

export interface Truth {
  readonly pins: TruthPin[];
  readonly pinsByType: Record<string, number>;
  readonly parking: TruthPin[];
  readonly stops: Stop[];
  readonly lines: Line[];
  readonly stopLines: { stopId: string; lineId: string }[];
  readonly notices: Notice[];
  readonly providers: Provider[];
  /** Sharing stations in the region, by provider and id: a sweep that lists sharing objects (ANY) finds them. */
  readonly stations: SharingStation[];
}

/** Which stored pin types a set of requested object types returns (ANY = all but parking). */
export function pinTypesFor(types: readonly ObjectType[]): Set<PinType> {
  const out = new Set<PinType>();
  for (const t of types) {
    if (t === 'ANY') for (const k of ['STOP', 'POI_POINT', 'POI_AREA', 'GIS_POINT', 'BUS_POINT', 'SHARING'] as const) out.add(k);
    else if (t === 'STOP' || t === 'POI_POINT' || t === 'POI_AREA' || t === 'GIS_POINT' || t === 'BUS_POINT') out.add(t);
  }
  return out;
}

function regionTest(region: TruthRegion): { box: BBox; contains: (lon: number, lat: number) => boolean } {
  if (!('type' in region)) return { box: region, contains: (x, y) => inBox(x, y, region) };
  const polys: readonly (readonly Ring[])[] = region.type === 'Polygon' ? [region.coordinates] : region.coordinates;
  let [a, b, c, d] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const poly of polys) for (const pt of poly[0] ?? []) {
    const x = pt[0] ?? 0, y = pt[1] ?? 0;
    a = Math.min(a, x); b = Math.min(b, y); c = Math.max(c, x); d = Math.max(d, y);
  }
  const contains = (x: number, y: number): boolean =>
    polys.some((poly) => {
      const [outer, ...holes] = poly;
      return !!outer && pointInLonLatRing(x, y, outer) && !holes.some((h) => pointInLonLatRing(x, y, h));
    });
  return { box: [a, b, c, d], contains };
}

const plain = (p: Pin): TruthPin => ({
  key: p.key, type: p.type, name: p.name, lon: p.lon, lat: p.lat, ...(p.id !== undefined ? { id: p.id } : {}),
  ...(p.globalId !== undefined ? { globalId: p.globalId } : {}),
});
const byKey = (x: { key: string }, y: { key: string }): number => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);

export function computeTruth(world: World, region: TruthRegion, opts: TruthOptions): Truth {
  const { box, contains } = regionTest(region);
  const wanted = pinTypesFor(opts.types ?? ['ANY']);
  const pins: TruthPin[] = [];
  const parking: TruthPin[] = [];
  const stops: Stop[] = [];
  const pinsByType: Record<string, number> = {};
  for (const p of world.pinsInBox(box)) {
    if (!contains(p.lon, p.lat)) continue;
    if (p.type === 'PARKING') {
      if (opts.parking) parking.push(plain(p));
      continue;
    }
    if (!wanted.has(p.type) || (opts.at && p.type === 'SHARING')) continue;
    pins.push(plain(p));
    pinsByType[p.type] = (pinsByType[p.type] ?? 0) + 1;
    if (p.type === 'STOP') stops.push(world.stopOf(p));
  }
  if (opts.at && wanted.has('SHARING')) {
    for (const { pin, vehicle } of vehiclesInBox(world, opts.at, box)) {
      if (!contains(vehicle.lon, vehicle.lat)) continue;
      pins.push(plain({ ...pin, lon: vehicle.lon, lat: vehicle.lat }));
      pinsByType.SHARING = (pinsByType.SHARING ?? 0) + 1;
    }
  }
  const lineMap = new Map<string, Line>();
  const stopLines: { stopId: string; lineId: string }[] = [];
  for (const s of stops) {
    for (const l of world.linesAtStop(s.id)) {
      lineMap.set(l.id, l);
      stopLines.push({ stopId: s.id, lineId: l.id });
    }
  }
  stops.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  stopLines.sort((x, y) => (x.stopId + ' ' + x.lineId < y.stopId + ' ' + y.lineId ? -1 : 1));
  return {
    pins: pins.sort(byKey),
    pinsByType,
    parking: parking.sort(byKey),
    stops,
    lines: [...lineMap.values()].sort((x, y) => (x.id < y.id ? -1 : 1)),
    stopLines,
    notices: world.currentNotices(opts.date ?? world.today),
    providers: world.providers(),
    stations: wanted.has('SHARING') ? world.stationsInBox(box).filter((st) => contains(st.lon, st.lat)) : [],
  };
}
