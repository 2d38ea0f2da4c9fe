export { vehicleSnapshots, vehicleSnapshotsTable, type VehicleRow } from './table.js';
export { isStationOnly, sharingRefOf, toVehicleRow, vehicleDetailsOf, vehiclesOf } from './row.js';
