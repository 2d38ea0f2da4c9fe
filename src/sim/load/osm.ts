/** OSM GeoJSON points → POI and parking pins (OSM lots have no sensors: no real-time occupancy). */
import { join } from 'node:path';
import type { Pin } from '../types.js';
import { arr, exists, num, obj, readJson, str } from './files.js';

function parkingKind(p: Record<string, unknown>): number {
  const parking = str(p.parking) ?? '';
  if (parking === 'multi-storey') return 1;
  if (parking === 'underground') return 2;
  if (parking === 'street_side' || parking === 'lane') return 8;
  if (str(p.amenity) === 'parking_space' || str(p.amenity) === 'bicycle_parking') return 4;
  return 2;
}

async function features(path: string): Promise<{ lon: number; lat: number; props: Record<string, unknown> }[]> {
  if (!(await exists(path))) return [];
  return arr(obj(await readJson(path)).features).flatMap((f) => {
    const c = arr(obj(obj(f).geometry).coordinates);
    const lon = num(c[0]), lat = num(c[1]);
    return lon === undefined || lat === undefined ? [] : [{ lon, lat, props: obj(obj(f).properties) }];
  });
}

const osmKey = (p: Record<string, unknown>): string => `osm:${(str(p.osm_type) ?? 'x').slice(0, 1)}${str(p.osm_id) ?? '0'}`;

export async function loadOsm(root: string): Promise<Pin[]> {
  const dir = join(root, 'osm-herrenberg');
  const pins: Pin[] = [];
  // Like the API's POI sample, POIs carry no id; the key stays internal.
  for (const f of await features(join(dir, 'osm-pois.geojson'))) {
    const p = f.props;
    pins.push({
      key: osmKey(p), type: 'POI_POINT', name: str(p.name) ?? str(p.subtype) ?? 'POI', lon: f.lon, lat: f.lat,
      attrs: { poiCategory: str(p.subtype) ?? null, osmCategory: str(p.category) ?? null },
    });
  }
  const parkingOf = (f: { lon: number; lat: number; props: Record<string, unknown> }, kind: number): Pin => {
    const p = f.props;
    const cap = Number(str(p.capacity) ?? 'NaN');
    return {
      key: osmKey(p), id: osmKey(p), type: 'PARKING', name: str(p.name) ?? (str(p.subtype) === 'bicycle_parking' ? 'Fahrradparken' : 'Parkplatz'),
      lon: f.lon, lat: f.lat,
      attrs: {
        parkingObjectType: kind, capacity: Number.isFinite(cap) ? cap : 0, charge: str(p.fee) === 'yes' ? 'pay' : 'free',
        parkRide: str(p.park_ride) !== undefined && str(p.park_ride) !== 'no', bikeRide: str(p.amenity) === 'bicycle_parking',
        _realtime: false,
      },
    };
  };
  for (const f of await features(join(dir, 'osm-parking.geojson'))) pins.push(parkingOf(f, parkingKind(f.props)));
  for (const f of await features(join(dir, 'osm-sharing-and-charging.geojson'))) {
    if (str(f.props.subtype) === 'charging_station') pins.push(parkingOf(f, 32));
    else pins.push({ key: osmKey(f.props), type: 'POI_POINT', name: str(f.props.name) ?? str(f.props.subtype) ?? 'POI', lon: f.lon, lat: f.lat, attrs: { poiCategory: str(f.props.subtype) ?? null } });
  }
  return pins;
}
