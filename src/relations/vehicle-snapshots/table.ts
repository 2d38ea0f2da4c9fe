import { pointEwkbHex } from '../../db/ewkb.js';
import type { SnapshotRelation } from '../snapshot-relation.js';
import type { TableDefinition } from '../table.js';

/** One sharing vehicle as one snapshot saw it (row.ts builds it from a CoordInfo record). */
export interface VehicleRow {
  readonly vehicleKey: string;
  readonly providerId: string | null;
  readonly areaId: string | null;
  readonly kind: string | null;
  readonly engine: string | null;
  readonly locationType: string | null;
  readonly chargePercent: number | null;
  readonly fuelPercent: number | null;
  readonly available: boolean | null;
  readonly detailed: boolean;
  /** The station a vehicle stands at, and its slot counts as sent (station-based sharing). */
  readonly stationId: string | null;
  readonly stationSlots: Record<string, unknown> | null;
  readonly model: string | null;
  readonly rangeKm: number | null;
  readonly lon: number;
  readonly lat: number;
}

/** efa.vehicle_snapshots: declared once; its comments are generated from this, its partitions made per UTC day. */
export const vehicleSnapshotsTable: TableDefinition = {
  schema: 'efa',
  name: 'vehicle_snapshots',
  comment:
    'Sharing vehicles over time: one row per vehicle per snapshot (sweeps.vehicles), appended with one COPY per snapshot, partitioned by UTC day, old days dropped whole (snapshots.retentionDays). Read with efa.snapshots: only a complete snapshot says where there were no vehicles.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key for GIS tools; with taken_at the primary key (PostgreSQL allows no unique constraint without the partition key).' },
    { name: 'taken_at', type: 'timestamp with time zone', notNull: true, comment: 'The snapshot time (efa.snapshots.taken_at; the partition key).' },
    { name: 'run_id', type: 'bigint', notNull: true, comment: 'The snapshot run.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment.' },
    { name: 'vehicle_key', type: 'text', notNull: true, comment: "The vehicle's id as sent (its SharingRefId <ID>:<OperatorID>:<OpAreaID> where the answer has that form). Unique per snapshot with provider_id: providers number their vehicles themselves." },
    { name: 'provider_id', type: 'text', comment: "The operator (provider) id: the answer's provider field, else the SharingRefId's second part; NULL where the answer names none. With vehicle_key, the vehicle's identity." },
    { name: 'area_id', type: 'text', comment: "The operating-area id: the answer's field, else the SharingRefId's third part." },
    { name: 'kind', type: 'text', comment: 'Vehicle kind as in vehSF (CAR, BIKE, MINIVEHICLE, TAXI, …).' },
    { name: 'engine', type: 'text', comment: 'Engine type as in vehEngineType (COMBUSTION, ELECTRIC, HYBRID).' },
    { name: 'location_type', type: 'text', comment: 'Location type as in vehLocType (CLASSIC, FREEFLOATER, STATION, POSITION).' },
    { name: 'charge_percent', type: 'real', comment: 'Battery charge in per cent, where the answer (or the vehicle-detail mode) says.' },
    { name: 'fuel_percent', type: 'real', comment: 'Fuel level in per cent, where the answer (or the vehicle-detail mode) says.' },
    { name: 'available', type: 'boolean', comment: 'Whether the vehicle can be rented, from the answer or the vehicle-detail mode (vehAvail); null when neither says. Views count a vehicle as available unless this is false.' },
    { name: 'detailed', type: 'boolean', notNull: true, default: 'false', comment: 'The vehicle-detail mode was asked for this vehicle in this snapshot (within the detail budget).' },
    { name: 'geom', type: 'geometry(Point,4326)', notNull: true, comment: 'Position (Point, EPSG:4326).' },
    { name: 'station_id', type: 'text', comment: 'The sharing station the vehicle stands at (rapidJSON coordInfoDetails.station.id), for station-based sharing; NULL for free-floating vehicles.' },
    { name: 'station_slots', type: 'jsonb', comment: 'That station\'s slot counts as sent, per slot kind: {"carSlots": {"totalSlots", "emptySlots", "freeVehicles"}, "bikeSlots": …}, with stNum and oOS (out of service) where sent.' },
    { name: 'model', type: 'text', comment: 'Vehicle model (rapidJSON vehicle.vehModel).' },
    { name: 'range_km', type: 'real', comment: 'Remaining range in km (rapidJSON vehicle.rangeKm, sent as text).' },
  ],
  primaryKey: ['taken_at', 'fid'],
  // One row per vehicle and snapshot; a vehicle without a provider is one too (NULLS NOT DISTINCT).
  constraints: [{ name: 'vehicle_snapshots_vehicle_key', sql: 'UNIQUE NULLS NOT DISTINCT (taken_at, run_id, provider_id, vehicle_key)' }],
  indexes: [
    { name: 'vehicle_snapshots_geom_idx', using: 'gist', on: ['geom'] },
    { name: 'vehicle_snapshots_key_idx', on: ['source', 'provider_id', 'vehicle_key', 'taken_at DESC'] },
  ],
  partitionBy: 'RANGE (taken_at)',
};

export const vehicleSnapshots: SnapshotRelation<VehicleRow> = {
  kind: 'vehicles',
  key: 'vehicle_key',
  table: vehicleSnapshotsTable,
  columns: [
    { name: 'vehicle_key', value: (v) => v.vehicleKey },
    { name: 'provider_id', value: (v) => v.providerId },
    { name: 'area_id', value: (v) => v.areaId },
    { name: 'kind', value: (v) => v.kind },
    { name: 'engine', value: (v) => v.engine },
    { name: 'location_type', value: (v) => v.locationType },
    { name: 'charge_percent', value: (v) => v.chargePercent },
    { name: 'fuel_percent', value: (v) => v.fuelPercent },
    { name: 'available', value: (v) => v.available },
    { name: 'detailed', value: (v) => v.detailed },
    // Hex EWKB of the row's doubles: the server reads it without parsing text.
    { name: 'geom', value: (v) => pointEwkbHex(v.lon, v.lat) },
    { name: 'station_id', value: (v) => v.stationId },
    { name: 'station_slots', value: (v) => (v.stationSlots === null ? null : JSON.stringify(v.stationSlots)) },
    { name: 'model', value: (v) => v.model },
    { name: 'range_km', value: (v) => v.rangeKm },
  ],
};
