/** OpArea (XML_OPAREA_REQUEST): sharing providers and their operating areas. */
import { BadParameterError } from '../errors.js';
import { distanceToRingM } from '../geo.js';
import type { Params } from '../params.js';
import type { Area, Provider } from '../types.js';
import type { World } from '../world.js';

export interface OpAreaResult {
  readonly providers: Provider[];
  readonly withGeometry: boolean;
}

export const DEFAULT_OPAREA_RADIUS_M = 500;
const KINDS = ['BIKE', 'CAR', 'MOTORCYCLE', 'MINIVEHICLE', 'TAXI'] as const;

export function runOpArea(world: World, p: Params): OpAreaResult {
  const mode = p.oneOf('opareaSM', ['ALL', 'RADIAL'] as const) ?? bad('opareaSM', 'is required (ALL or RADIAL)');
  const withGeometry = p.flag('operatingZoneGeometry');
  const kinds = p.allOf('vehSF', KINDS);
  let circle: { lon: number; lat: number; radius: number } | undefined;
  if (mode === 'RADIAL') {
    if (p.get('opASR') !== '1') bad('opASR', 'must be 1 in RADIAL mode');
    const c = p.coord('coordRadius', true) ?? bad('coordRadius', 'is required in RADIAL mode: <lon>:<lat>:WGS84[dd.ddddd][:<radius_m>]');
    circle = { lon: c.lon, lat: c.lat, radius: c.radius ?? DEFAULT_OPAREA_RADIUS_M };
  } else if (p.has('opASR')) {
    p.flag('opASR');
  }
  const pids = p.indexed('vehPId');
  const areaIds = p.indexed('opAreaId');
  for (const [i, v] of pids) if (v === '') bad(`vehPId${i}`, 'must not be empty');
  for (const [i, v] of areaIds) {
    if (!pids.has(i)) bad(`opAreaId${i}`, `needs vehPId${i} with the same index`);
    if (v === '') bad(`opAreaId${i}`, 'must not be empty');
  }
  /** provider id → area ids selected for it (undefined = all its areas). */
  const selected = new Map<string, Set<string> | undefined>();
  for (const [i, pid] of pids) {
    const aid = areaIds.get(i);
    if (aid === undefined) selected.set(pid, undefined);
    else if (!selected.has(pid) || selected.get(pid)) selected.set(pid, new Set([...(selected.get(pid) ?? []), aid]));
  }
  const out: Provider[] = [];
  for (const prov of world.providers()) {
    if (selected.size > 0 && !selected.has(prov.id)) continue;
    if (kinds.length > 0 && !kinds.includes(prov.vehicleType)) continue;
    const only = selected.get(prov.id);
    const areas: Area[] = prov.areas.filter(
      (a) => (!only || only.has(a.id)) && (!circle || distanceToRingM(circle.lon, circle.lat, a.polygon) <= circle.radius),
    );
    if (circle && areas.length === 0) continue;
    out.push({ ...prov, areas });
  }
  return { providers: out, withGeometry };
}

function bad(name: string, detail: string): never {
  throw new BadParameterError(name, detail);
}
