/**
 * Sharing stations in CoordInfo answers, as the published rapidJSON schema describes them: a
 * sharing location whose `coordInfoDetails` has type STATION and a `station` (id, name, provider
 * name, operating area, `coord` as [lat, lon], `<kind>Slots` counts, `stNum`, `addr`, `oOS`) and no
 * `vehicleDetails`. Every dialect carries the same object: rapidJSON under `properties`, the json
 * and legacy dialects as an extra field of the pin (legacy keeps structures as objects).
 *
 * A station answers the searches that list sharing objects (type ANY) without vehicle filters: a
 * vehicle search (vehSF, vehLocType, vehAtStation) asks for vehicles, and the snapshot's answers
 * stay what they were. The schema's providerId is a number; the simulated providers are named by
 * words, so, as for vehicles, it is left out and the location's id is the SharingRefId form
 * `<station id>:<provider id>:<area id>` that names it.
 */
import { bboxOfCircle, haversineM } from '../geo.js';
import { hash32, hashText } from '../rng.js';
import type { Pin, SharingStation } from '../types.js';
import { stationKey, type World } from '../world.js';
import type { CoordQuery, PinOut } from './coord.js';

/**
 * Vehicles standing at a station and slots free, at a clock: a fresh draw per 10-minute step, so
 * two nights never see the same counts; without a clock, half the slots hold a vehicle.
 */
function momentary(world: World, s: SharingStation, kind: string, total: number, at: Date | undefined): { empty: number; free: number } {
  if (s.outOfService) return { empty: 0, free: 0 };
  const free = at === undefined ? Math.floor(total / 2) : hash32(hashText(world.seed, `${stationKey(s)}/${kind}`), Math.floor(at.getTime() / 600_000)) % (total + 1);
  return { empty: total - free, free };
}

/** The schema's `station` object of one station. */
export function stationWire(world: World, s: SharingStation, at: Date | undefined): Record<string, unknown> {
  const slots: Record<string, unknown> = {};
  for (const [kind, total] of Object.entries(s.capacity)) {
    const { empty, free } = momentary(world, s, kind, total, at);
    slots[`${kind}Slots`] = { totalSlots: total, emptySlots: empty, freeVehicles: free };
  }
  const provider = world.provider(s.providerId);
  const area = provider?.areas.find((a) => a.id === s.areaId);
  return {
    id: s.id,
    name: s.name,
    coord: [s.lat, s.lon],
    ...(provider === undefined ? {} : { providerName: provider.name }),
    operatingAreaId: s.areaId,
    ...(area === undefined ? {} : { operatingAreaName: area.name }),
    ...(s.number === undefined ? {} : { stNum: s.number }),
    ...(s.address === undefined ? {} : { addr: s.address }),
    ...slots,
    oOS: s.outOfService,
  };
}

/** A station as an answer's object: a SHARING location standing for the station itself. */
function stationOut(world: World, s: SharingStation, distanceM: number, at: Date | undefined): PinOut {
  const pin: Pin = {
    key: `station:${stationKey(s)}`, id: `${s.id}:${s.providerId}:${s.areaId}`, type: 'SHARING', name: s.name, lon: s.lon, lat: s.lat, attrs: {},
  };
  return { pin, distanceM, extra: { coordInfoDetails: { type: 'STATION', operatingAreaId: s.areaId, station: stationWire(world, s, at) } } };
}

/** The stations of a box or circle search (edges inclusive, as for pins). */
export function stationHits(world: World, q: CoordQuery, radiusM: number, centre: { lon: number; lat: number }, at: Date | undefined): PinOut[] {
  if (q.circle) {
    const { lon, lat } = q.circle;
    return world.stationsInBox(bboxOfCircle(lon, lat, radiusM)).flatMap((s) => {
      const d = haversineM(lon, lat, s.lon, s.lat);
      return d <= radiusM ? [stationOut(world, s, d, at)] : [];
    });
  }
  if (!q.box) return [];
  return world.stationsInBox(q.box).map((s) => stationOut(world, s, haversineM(centre.lon, centre.lat, s.lon, s.lat), at));
}
