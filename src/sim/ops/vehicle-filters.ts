/**
 * The vehicle filters of CoordInfo (efa-api.md, vehicle-detail table), read the same way in the
 * detail mode and in box and circle searches:
 * - `vehSF` (repeatable): only vehicles of those kinds; in a search it also drops every object
 *   that is not a sharing vehicle, so a vehicles sweep is not diluted by stops and POIs;
 * - `vehEngineType` (repeatable) and `vehLocType<i>`: only vehicles with one of those drives or
 *   location types (a vehicle of unknown drive matches no drive filter); other objects stay;
 * - `vehAtStation=1`: vehicles standing at stations are included; without it they are not.
 * Any of them makes the answer one of the moving world (see moving.ts), as of the request's clock.
 */
import type { Params } from '../params.js';
import { ENGINE_TYPES, LOCATION_TYPES, type EngineType, type LocationType, type SimVehicle } from '../moving/vehicles.js';
import type { VehicleKind } from '../types.js';

/** The kinds efa-api.md lists for CoordInfo's vehSF. */
const VEH_SF_KINDS = ['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI'] as const;

export interface VehicleFilter {
  readonly kinds: readonly VehicleKind[];
  readonly engines: readonly EngineType[];
  readonly locationTypes: readonly LocationType[];
  readonly atStation: boolean;
}

/** The request's vehicle filters; undefined when it names none of them. */
export function vehicleFilter(p: Params): VehicleFilter | undefined {
  const kinds = p.allOf('vehSF', VEH_SF_KINDS);
  const engines = p.allOf('vehEngineType', ENGINE_TYPES);
  const locTypes = [...p.indexed('vehLocType').entries()].sort(([a], [b]) => a - b);
  const locationTypes = locTypes.map(([i, v]) => p.oneOf(`vehLocType${i}`, LOCATION_TYPES, v) ?? 'FREEFLOATER');
  const given = p.has('vehSF') || p.has('vehEngineType') || locTypes.length > 0 || p.has('vehAtStation');
  const atStation = p.flag('vehAtStation');
  return given ? { kinds, engines, locationTypes, atStation } : undefined;
}

/** Whether a vehicle passes the filters (no filter: every vehicle, stations included). */
export function vehicleMatches(f: VehicleFilter | undefined, v: SimVehicle): boolean {
  if (!f) return true;
  if (f.kinds.length > 0 && !f.kinds.includes(v.kind)) return false;
  if (f.engines.length > 0 && (v.engine === null || !f.engines.includes(v.engine))) return false;
  if (f.locationTypes.length > 0 && !f.locationTypes.includes(v.locationType)) return false;
  return v.locationType !== 'STATION' || f.atStation;
}

/** A vehicle's answer fields: the pin's own, with charge, fuel and availability as of the clock. */
export function vehicleAttrs(attrs: Readonly<Record<string, unknown>>, v: SimVehicle): Record<string, unknown> {
  const { fuelPercent: _fuel, chargePercent: _charge, ...rest } = attrs;
  return {
    ...rest,
    ...(v.chargePercent === null ? {} : { chargePercent: v.chargePercent }),
    ...(v.fuelPercent === null ? {} : { fuelPercent: v.fuelPercent }),
    available: v.available,
  };
}
