/** CoordInfo vehicle-detail mode: one sharing vehicle by SharingRefId, as of the clock, subject to the vehicle filters. */
import { BadParameterError } from '../errors.js';
import { vehicleOf } from '../moving/vehicles.js';
import type { Params } from '../params.js';
import type { World } from '../world.js';
import type { PinOut } from './coord.js';
import { vehicleAttrs, vehicleFilter, vehicleMatches } from './vehicle-filters.js';

/** The vehicle where `vehiclesAt(world, at)` has it; none while it is rented or off the street. */
export function vehicleDetail(world: World, p: Params, at: Date): PinOut[] {
  const ref = p.required('SharingRefId', 'expected <ID>:<OperatorID>:<OpAreaID>');
  if (ref.split(':').length !== 3 || ref.split(':').some((s) => s === '')) {
    throw new BadParameterError('SharingRefId', `expected <ID>:<OperatorID>:<OpAreaID>, got "${ref}"`);
  }
  p.oneOf('vehSM', ['ID'] as const);
  const detail = p.flag('vehDetail');
  const spec = p.flag('vehSpec');
  const avail = p.flag('vehAvail');
  // In detail mode an absent vehAtStation still means "not at stations", as in a search.
  const filter = vehicleFilter(p) ?? { kinds: [], engines: [], locationTypes: [], atStation: false };
  const pin = world.pin(ref);
  if (!pin || pin.type !== 'SHARING') return [];
  const v = vehicleOf(world, pin, at);
  if (!v || !vehicleMatches(filter, v)) return [];
  const extra = vehicleAttrs(pin.attrs, v);
  if (detail && spec) {
    extra.specification = {
      engineType: v.engine, vehicleType: v.kind,
      maxSpeedKmh: v.kind === 'CAR' ? 160 : v.kind === 'MINIVEHICLE' ? 20 : 25, seats: v.kind === 'CAR' ? 5 : 1,
    };
  }
  if (detail && avail) extra.availability = { available: v.available, chargePercent: v.chargePercent, fuelPercent: v.fuelPercent };
  return [{ pin: { ...pin, lon: v.lon, lat: v.lat }, distanceM: 0, extra }];
}
