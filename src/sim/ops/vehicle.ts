/** CoordInfo vehicle-detail mode: one sharing vehicle by SharingRefId, subject to the vehicle filters. */
import { BadParameterError } from '../errors.js';
import type { Params } from '../params.js';
import { hash32 } from '../rng.js';
import type { World } from '../world.js';
import type { PinOut } from './coord.js';

const ENGINES = ['COMBUSTION', 'ELECTRIC', 'HYBRID'] as const;
const LOC_TYPES = ['CLASSIC', 'FREEFLOATER', 'STATION', 'POSITION'] as const;
const KINDS = ['CAR', 'BIKE', 'MINIVEHICLE', 'TAXI'] as const;

export function vehicleDetail(world: World, p: Params): PinOut[] {
  const ref = p.required('SharingRefId', 'expected <ID>:<OperatorID>:<OpAreaID>');
  if (ref.split(':').length !== 3 || ref.split(':').some((s) => s === '')) {
    throw new BadParameterError('SharingRefId', `expected <ID>:<OperatorID>:<OpAreaID>, got "${ref}"`);
  }
  p.oneOf('vehSM', ['ID'] as const);
  const detail = p.flag('vehDetail');
  const atStation = p.flag('vehAtStation');
  const spec = p.flag('vehSpec');
  const avail = p.flag('vehAvail');
  const engines = p.allOf('vehEngineType', ENGINES);
  const kinds = p.allOf('vehSF', KINDS);
  const locTypes = [...p.indexed('vehLocType').entries()].map(([i, v]) => p.oneOf(`vehLocType${i}`, LOC_TYPES, v));
  const pin = world.pin(ref);
  if (!pin || pin.type !== 'SHARING') return [];
  const a = pin.attrs;
  if (engines.length > 0 && !engines.some((e) => e === a.engineType)) return [];
  if (kinds.length > 0 && !kinds.some((k) => k === a.vehicleType)) return [];
  if (locTypes.length > 0 && !locTypes.some((l) => l === a.locationType)) return [];
  if (a.locationType === 'STATION' && !atStation) return [];
  const extra: Record<string, unknown> = { ...a };
  const h = hash32(ref.length, Math.round(pin.lon * 1e6), Math.round(pin.lat * 1e6));
  if (detail && spec) {
    extra.specification = {
      engineType: a.engineType ?? null, vehicleType: a.vehicleType ?? null,
      maxSpeedKmh: a.vehicleType === 'CAR' ? 160 : a.vehicleType === 'MINIVEHICLE' ? 20 : 25, seats: a.vehicleType === 'CAR' ? 5 : 1,
    };
  }
  if (detail && avail) {
    extra.availability = { available: h % 5 !== 0, fuelPercent: typeof a.fuelPercent === 'number' ? a.fuelPercent : null };
  }
  return [{ pin, distanceM: 0, extra }];
}
