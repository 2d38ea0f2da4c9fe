/** GBFS feeds → sharing providers (geofencing zones as operating areas) and sharing-vehicle pins. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { closeRing } from '../geo.js';
import type { Area, Pin, Provider, VehicleKind } from '../types.js';
import { arr, exists, num, obj, readJson, str } from './files.js';

const NO_AREA = 'default';

async function systemName(dir: string, fallback: string): Promise<string> {
  const p = join(dir, 'system_information.json');
  return (await exists(p)) ? (str(obj(obj(await readJson(p)).data).name) ?? fallback) : fallback;
}

/** Each polygon of a zone's (Multi)Polygon becomes one area: the API's area is a single closed [lat, lon] ring. */
async function zones(dir: string, pid: string): Promise<Area[]> {
  const p = join(dir, 'geofencing_zones.json');
  if (!(await exists(p))) return [];
  const features = arr(obj(obj(obj(await readJson(p)).data).geofencing_zones).features);
  const areas: Area[] = [];
  features.forEach((f, fi) => {
    const g = obj(obj(f).geometry);
    const name = str(obj(obj(f).properties).name) ?? `${pid} zone ${fi + 1}`;
    const polys = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? arr(g.coordinates) : [];
    polys.forEach((poly, pi) => {
      const outer = arr(arr(poly)[0]).map((pt) => [num(arr(pt)[1]) ?? 0, num(arr(pt)[0]) ?? 0] as [number, number]);
      if (outer.length < 3) return;
      areas.push({ id: `${pid}-${fi + 1}-${pi + 1}`, name: polys.length > 1 ? `${name} (${pi + 1})` : name, polygon: closeRing(outer) });
    });
  });
  return areas;
}

function vehiclePin(id: string, p: Provider, lon: number, lat: number, name: string, attrs: Pin['attrs']): Pin {
  const ref = `${id.replaceAll(':', '_')}:${p.id}:${p.areas[0]?.id ?? NO_AREA}`;
  return {
    key: ref, id: ref, type: 'SHARING', name, lon, lat,
    attrs: { vehicleType: p.vehicleType, operatorId: p.id, opAreaId: p.areas[0]?.id ?? NO_AREA, ...attrs },
  };
}

export async function loadSharing(root: string): Promise<{ providers: Provider[]; pins: Pin[] }> {
  const providers: Provider[] = [];
  const pins: Pin[] = [];
  const systems: [dir: string, id: string, kind: VehicleKind][] = [];
  const staticDir = join(root, 'stadtnavi-static-gbfs');
  if (await exists(staticDir)) {
    for (const d of (await readdir(staticDir)).sort()) systems.push([join(staticDir, d), d, d.startsWith('car-sharing') ? 'CAR' : 'BIKE']);
  }
  systems.push([join(root, 'voi-karlsruhe', 'gbfs-derived'), 'voi-karlsruhe', 'MINIVEHICLE']);
  systems.push([join(root, 'otp-gbfs', 'tieroslo'), 'tier-oslo', 'MINIVEHICLE']);
  systems.push([join(root, 'otp-gbfs', 'ridecheck', 'almere'), 'check-almere', 'MOTORCYCLE']);
  for (const [dir, id, kind] of systems) {
    if (!(await exists(dir))) continue;
    const provider: Provider = { id, name: await systemName(dir, id), vehicleType: kind, areas: await zones(dir, id) };
    providers.push(provider);
    const stations = join(dir, 'station_information.json');
    if (await exists(stations)) {
      for (const s of arr(obj(obj(await readJson(stations)).data).stations)) {
        const o = obj(s), lon = num(o.lon), lat = num(o.lat), sid = str(o.station_id);
        if (lon === undefined || lat === undefined || !sid) continue;
        pins.push(vehiclePin(`S${sid}`, provider, lon, lat, str(o.name) ?? sid, { locationType: 'STATION', engineType: kind === 'CAR' ? 'COMBUSTION' : 'ELECTRIC' }));
      }
    }
    for (const [file, listKey, idKey] of [['free_bike_status.json', 'bikes', 'bike_id'], ['vehicle_status.json', 'vehicles', 'vehicle_id']] as const) {
      const path = join(dir, file);
      if (!(await exists(path))) continue;
      for (const v of arr(obj(obj(await readJson(path)).data)[listKey])) {
        const o = obj(v), lon = num(o.lon), lat = num(o.lat), vid = str(o[idKey]);
        if (lon === undefined || lat === undefined || !vid) continue;
        const fuel = num(o.current_fuel_percent);
        pins.push(vehiclePin(vid, provider, lon, lat, `${provider.name} ${vid.slice(0, 8)}`, {
          locationType: 'FREEFLOATER', engineType: 'ELECTRIC', ...(fuel !== undefined ? { fuelPercent: Math.round(fuel * 100) } : {}),
        }));
      }
    }
  }
  return { providers, pins };
}
