export { parkingSnapshots, parkingSnapshotsTable, type ParkingRow } from './table.js';
export { isParking, toParkingRow } from './row.js';
export { checkedParkingFigures, PARKING_DATA_SOURCES, type ParkingDataSource } from './figures.js';
