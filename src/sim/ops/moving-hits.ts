/** The sharing vehicles of a box or circle search, where the moving world has them at the clock. */
import { vehiclesInBox, vehiclesInCircle } from '../moving/vehicles.js';
import { haversineM } from '../geo.js';
import type { World } from '../world.js';
import type { CoordQuery, PinOut } from './coord.js';
import { vehicleAttrs, vehicleMatches } from './vehicle-filters.js';

export function movingVehicleHits(world: World, q: CoordQuery, radiusM: number, centre: { lon: number; lat: number }, at: Date): PinOut[] {
  const found = q.circle
    ? vehiclesInCircle(world, at, q.circle.lon, q.circle.lat, radiusM)
    : q.box
      ? vehiclesInBox(world, at, q.box).map((x) => ({ ...x, distanceM: haversineM(centre.lon, centre.lat, x.vehicle.lon, x.vehicle.lat) }))
      : [];
  return found
    .filter(({ vehicle }) => vehicleMatches(q.vehicles, vehicle))
    .map(({ pin, vehicle, distanceM }) => ({
      pin: { ...pin, lon: vehicle.lon, lat: vehicle.lat }, distanceM, extra: vehicleAttrs(pin.attrs, vehicle),
    }));
}
