/**
 * Small pure parsers from the files of `../shared/world-data/` (see its SOURCES.md) to typed points,
 * as an EFA deployment of that region would answer them: each point has the CoordInfo object type a
 * server files it under, an id and its position with the 5 decimals an answer carries.
 */
import { snapEdge } from '../../src/tiling/index.js';

/**
 * The kinds of object a nightly CoordInfo sweep asks for. STOP and BUS_POINT (platforms) and
 * POI_POINT are `type_<i>` values; PARKING is the parking box search (`parkingBB`); SHARING stands for
 * the sharing stations a deployment files as GIS points. Each can be asked for alone.
 */
export const WORLD_TYPES = ['STOP', 'BUS_POINT', 'POI_POINT', 'PARKING', 'SHARING'] as const;
export type WorldType = (typeof WORLD_TYPES)[number];

export interface TypedPoint {
  readonly id: string;
  readonly type: WorldType;
  readonly lon: number;
  readonly lat: number;
}

function point(id: string, type: WorldType, lon: number, lat: number): TypedPoint | undefined {
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || (lon === 0 && lat === 0)) return undefined;
  return { id, type, lon: snapEdge(lon), lat: snapEdge(lat) };
}

function defined<T>(xs: readonly (T | undefined)[]): T[] {
  return xs.filter((x): x is T => x !== undefined);
}

/** GTFS `stops.txt` (the VVS feeds carry only id, name, lat, lon; no quoted commas in ids or coordinates). */
function readStopsTxt(text: string): { id: string; lon: number; lat: number }[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const head = (lines[0] ?? '').replace(/^\uFEFF/, '').split(',');
  const col = (name: string): number => {
    const i = head.indexOf(name);
    if (i < 0) throw new Error(`stops.txt: no column ${name} in its header (${head.join(',')}); expected a GTFS stops.txt`);
    return i;
  };
  const [iId, iLat, iLon] = [col('stop_id'), col('stop_lat'), col('stop_lon')];
  // A name may hold a quoted comma, so the numeric columns are read from the end when the row is longer.
  return lines.slice(1).map((l) => {
    const f = l.split(',');
    const shift = f.length - head.length;
    return { id: f[iId]!, lat: Number(f[iLat + (iLat > 1 ? shift : 0)]), lon: Number(f[iLon + (iLon > 1 ? shift : 0)]) };
  });
}

/** Platforms of a GTFS feed as BUS_POINT, one per stop_id. */
export function gtfsPlatforms(stopsTxt: string): TypedPoint[] {
  return defined(readStopsTxt(stopsTxt).map((s) => point(s.id, 'BUS_POINT', s.lon, s.lat)));
}

/**
 * Stop areas of a GTFS feed as STOP: IFOPT ids cut after their third part (`de:08111:6115`), at the
 * mean position of their platforms, as EFA answers a stop.
 */
export function gtfsStopAreas(stopsTxt: string): TypedPoint[] {
  const areas = new Map<string, { lon: number; lat: number; n: number }>();
  for (const s of readStopsTxt(stopsTxt)) {
    if (!Number.isFinite(s.lon) || !Number.isFinite(s.lat)) continue;
    const key = s.id.split(':').slice(0, 3).join(':');
    const a = areas.get(key) ?? { lon: 0, lat: 0, n: 0 };
    areas.set(key, { lon: a.lon + s.lon, lat: a.lat + s.lat, n: a.n + 1 });
  }
  return defined([...areas].map(([id, a]) => point(id, 'STOP', a.lon / a.n, a.lat / a.n)));
}

interface Feature {
  readonly geometry?: { readonly type?: string; readonly coordinates?: readonly number[] } | null;
  readonly properties?: Record<string, unknown> | null;
}

/** Point features of a GeoJSON FeatureCollection, typed by `classify` (undefined leaves a feature out). */
export function geojsonPoints(json: string, prefix: string, classify: (props: Record<string, unknown>) => WorldType | undefined): TypedPoint[] {
  const fc = JSON.parse(json) as { features?: readonly Feature[] };
  if (!Array.isArray(fc.features)) throw new Error(`${prefix}: not a GeoJSON FeatureCollection (no features array)`);
  return defined(
    fc.features.map((f, i) => {
      const c = f.geometry?.type === 'Point' ? f.geometry.coordinates : undefined;
      const props = f.properties ?? {};
      const type = classify(props);
      if (c === undefined || type === undefined) return undefined;
      const osm = props['osm_id'] ?? props['index_in_layer'] ?? i;
      return point(`${prefix}:${String(props['osm_type'] ?? props['source_layer'] ?? '')}:${String(osm)}`, type, c[0]!, c[1]!);
    }),
  );
}

/** Stations of a GBFS `station_information.json` as SHARING. */
export function gbfsStations(json: string, prefix: string): TypedPoint[] {
  const doc = JSON.parse(json) as { data?: { stations?: readonly { station_id: string; lon: number; lat: number }[] } };
  const stations = doc.data?.stations;
  if (!Array.isArray(stations)) throw new Error(`${prefix}: not a GBFS station_information (no data.stations)`);
  return defined(stations.map((s) => point(`${prefix}:${s.station_id}`, 'SHARING', s.lon, s.lat)));
}

/** Lots of a ParkAPI city file as PARKING. */
export function parkApiLots(json: string, prefix: string): TypedPoint[] {
  const doc = JSON.parse(json) as { lots?: readonly { id?: string; name?: string; coords?: { lat: number; lng: number } }[] };
  if (!Array.isArray(doc.lots)) throw new Error(`${prefix}: not a ParkAPI city file (no lots array)`);
  return defined(doc.lots.map((l, i) => (l.coords ? point(`${prefix}:${l.id ?? l.name ?? i}`, 'PARKING', l.coords.lng, l.coords.lat) : undefined)));
}

/** OSM POIs of the Herrenberg extract: stations are stops, not POIs, in EFA (they come as STOP). */
export const osmPoiType = (p: Record<string, unknown>): WorldType | undefined => (p['category'] === 'public_transport' ? undefined : 'POI_POINT');

/** Categories of the stadtnavi Stuttgart layers by what EFA answers them as. */
export function stadtnaviType(p: Record<string, unknown>): WorldType | undefined {
  const c = String(p['category'] ?? '');
  if (c === 'bicycle_parking' || c === 'parking' || c === 'park_and_ride') return 'PARKING';
  if (c === 'bicycle_rental' || c === 'car_sharing') return 'SHARING';
  return 'POI_POINT';
}

/** OSM sharing and charging features: rental and sharing are SHARING, the rest POIs. */
export function osmSharingType(p: Record<string, unknown>): WorldType {
  const s = String(p['subtype'] ?? p['amenity'] ?? '');
  return s === 'car_sharing' || s === 'bicycle_rental' || s === 'car_rental' ? 'SHARING' : 'POI_POINT';
}
