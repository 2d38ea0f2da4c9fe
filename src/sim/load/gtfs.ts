/** VVS GTFS feeds → stop-area pins and lines (ids as the VVS EFA uses them). */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Line, Pin } from '../types.js';
import { exists, readCsv } from './files.js';

/** GTFS route_type (basic and extended) → EFA means-of-transport id. */
export function motOfRouteType(t: number): number {
  if (t === 109 || (t >= 300 && t < 400)) return 1;
  if (t === 1 || (t >= 400 && t < 500)) return 2;
  if (t === 0 || (t >= 900 && t < 1000)) return 4;
  if (t === 2 || (t >= 100 && t < 200)) return 0;
  if (t === 4 || (t >= 1000 && t < 1300)) return 9;
  if (t === 6 || t === 7 || (t >= 1300 && t < 1500)) return 8;
  if (t === 3 || (t >= 700 && t < 800)) return 5;
  return 11;
}

/** `31-773-j21-4` + direction → `vvs:31773: :H:j21`. */
function lineIdOf(routeId: string, directionId: string): { id: string; diva: string; dirCode: string; project: string } {
  const [net = '0', line = routeId, project = 'j00'] = routeId.split('-');
  const diva = `${net}${line.padStart(3, '0')}`;
  const dirCode = directionId === '1' ? 'R' : 'H';
  return { id: `vvs:${diva}: :${dirCode}:${project}`, diva, dirCode, project };
}

export const stopAreaOf = (id: string): string => id.split(':').slice(0, 3).join(':');

export async function loadGtfs(dir: string): Promise<{ stops: Pin[]; lines: { line: Line; stops: string[] }[] }> {
  const feeds = (await readdir(dir)).filter((d) => /gtfs$/.test(d)).sort();
  const platforms = new Map<string, { name: string; lon: number; lat: number }>();
  const lines = new Map<string, { line: Line; stops: string[]; headsigns: Map<string, number> }>();
  for (const feed of feeds) {
    const base = join(dir, feed);
    if (!(await exists(join(base, 'stops.txt')))) continue;
    for (const s of await readCsv(join(base, 'stops.txt'))) {
      const lat = Number(s.stop_lat), lon = Number(s.stop_lon);
      if (s.stop_id && Number.isFinite(lat) && Number.isFinite(lon) && !platforms.has(s.stop_id)) {
        platforms.set(s.stop_id, { name: s.stop_name ?? s.stop_id, lon, lat });
      }
    }
    if (!(await exists(join(base, 'trips.txt')))) continue;
    const routes = new Map((await readCsv(join(base, 'routes.txt'))).map((r) => [r.route_id ?? '', r]));
    const tripLine = new Map<string, string>();
    for (const t of await readCsv(join(base, 'trips.txt'))) {
      const r = routes.get(t.route_id ?? '');
      if (!r || !t.trip_id) continue;
      const { id, diva, dirCode, project } = lineIdOf(t.route_id ?? '', t.direction_id ?? '0');
      let entry = lines.get(id);
      if (!entry) {
        const mot = motOfRouteType(Number(r.route_type));
        const number = r.route_short_name ?? diva;
        const name = mot === 5 ? `Bus ${number}` : number;
        entry = { line: { id, network: 'vvs', diva, supplement: ' ', dirCode, project, name, number, mot, direction: '', operator: 'VVS' }, stops: [], headsigns: new Map() };
        lines.set(id, entry);
      }
      const h = t.trip_headsign ?? '';
      if (h) entry.headsigns.set(h, (entry.headsigns.get(h) ?? 0) + 1);
      tripLine.set(t.trip_id, id);
    }
    const seen = new Map<string, Set<string>>();
    for (const st of await readCsv(join(base, 'stop_times.txt'))) {
      const lineId = tripLine.get(st.trip_id ?? '');
      const entry = lineId ? lines.get(lineId) : undefined;
      if (!entry || !lineId || !st.stop_id) continue;
      const area = stopAreaOf(st.stop_id);
      let set = seen.get(lineId);
      if (!set) seen.set(lineId, (set = new Set(entry.stops)));
      if (!set.has(area)) { set.add(area); entry.stops.push(area); }
    }
  }
  const areas = new Map<string, { name: string; lon: number; lat: number; n: number }>();
  for (const [id, p] of platforms) {
    const key = stopAreaOf(id);
    const a = areas.get(key);
    if (a) { a.lon += p.lon; a.lat += p.lat; a.n++; } else areas.set(key, { ...p, n: 1 });
  }
  const stops: Pin[] = [...areas].map(([id, a]) => ({
    // VVS stop areas are numbered by their DHID (de:08111:6008), so the id is the global id.
    key: id, id, globalId: id, type: 'STOP', name: a.name, lon: +(a.lon / a.n).toFixed(6), lat: +(a.lat / a.n).toFixed(6),
    attrs: { omc: `${Number(id.split(':')[1] ?? 0)}000`, platforms: a.n },
  }));
  const out = [...lines.values()].map(({ line, stops: s, headsigns }) => {
    const top = [...headsigns].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
    return { line: { ...line, direction: top ?? areas.get(s[s.length - 1] ?? '')?.name ?? '' }, stops: s.filter((x) => areas.has(x)) };
  });
  return { stops, lines: out };
}
