/** Sharing stations for a generated world: bike and car stations inside their providers' areas. */
import { pointInRing } from './geo.js';
import { placeName } from './names.js';
import { hash32, type Rng } from './rng.js';
import type { Provider, SharingStation } from './types.js';

/** Which `<kind>Slots` a station of a provider's vehicle type has (the published schema's words). */
const SLOT_KINDS: Readonly<Record<string, readonly string[]>> = { BIKE: ['bike', 'eBike'], CAR: ['car', 'carElectric'] };

/**
 * `count` stations, dealt in turn to the providers with station-based kinds (bikes, cars), each
 * at a point of one of its areas. Ids are the provider's own numbers (`1001`, ...), so two
 * providers may share an id: a station is keyed by provider and id.
 */
export function generateStations(rng: Rng, providers: readonly Provider[], count: number): SharingStation[] {
  const owners = providers.filter((p) => SLOT_KINDS[p.vehicleType] !== undefined && p.areas.length > 0);
  const out: SharingStation[] = [];
  for (let k = 0; k < count && owners.length > 0; k++) {
    const provider = owners[k % owners.length] as Provider;
    const area = provider.areas[Math.floor(rng() * provider.areas.length)] ?? provider.areas[0];
    if (!area) continue;
    const lats = area.polygon.map((p) => p[0]), lons = area.polygon.map((p) => p[1]);
    const [minLat, maxLat, minLon, maxLon] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
    let lon = (minLon + maxLon) / 2, lat = (minLat + maxLat) / 2;
    for (let attempt = 0; attempt < 20; attempt++) {
      const x = +(minLon + rng() * (maxLon - minLon)).toFixed(6), y = +(minLat + rng() * (maxLat - minLat)).toFixed(6);
      if (pointInRing(x, y, area.polygon)) { lon = x; lat = y; break; }
    }
    const h = hash32(k, 29);
    const capacity = Object.fromEntries((SLOT_KINDS[provider.vehicleType] ?? []).map((kind, i) => [kind, 4 + ((h >>> (8 * i)) % 17)]));
    out.push({
      id: String(1001 + Math.floor(k / owners.length)), providerId: provider.id, areaId: area.id,
      name: `${placeName(h)} Station`, lon, lat, capacity, outOfService: h % 23 === 0, number: String(100 + k),
    });
  }
  return out;
}
