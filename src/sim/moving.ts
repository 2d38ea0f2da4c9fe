/** The moving world: vehicles and car-park occupancy as a pure function of (world, clock). */
export {
  vehiclesAt, vehicleOf, vehiclesInBox, vehiclesInCircle, DRIFT_RADIUS_M, MAX_DRIFT_M, LOW_CHARGE_PERCENT,
  ENGINE_TYPES, LOCATION_TYPES, type SimVehicle, type EngineType, type LocationType,
} from './moving/vehicles.js';
export { parkingAt, parkingOf, type SimParking } from './moving/parking.js';
export { occupancyCurve, rentedShare, offStreetShare } from './moving/curves.js';
export { parseClock, localTime, cetOffsetMinutes } from './clock.js';
