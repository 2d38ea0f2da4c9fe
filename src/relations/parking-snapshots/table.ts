import { pointEwkbHex } from '../../db/ewkb.js';
import type { SnapshotRelation } from '../snapshot-relation.js';
import type { TableDefinition } from '../table.js';

/** One parking object and its occupancy as one snapshot saw it (row.ts builds it from a CoordInfo record). */
export interface ParkingRow {
  readonly parkingKey: string;
  readonly name: string | null;
  readonly kind: number | null;
  readonly capacity: number | null;
  readonly free: number | null;
  readonly occupied: number | null;
  /** REALTIME (measured), PROFILE (a day curve's forecast) or UNKNOWN; null when the answer had no figure. */
  readonly dataSource: 'REALTIME' | 'PROFILE' | 'UNKNOWN' | null;
  /** When the figure was measured, where the answer says with its zone. */
  readonly measuredAt: Date | null;
  readonly occ: number | null;
  readonly occLos: number | null;
  readonly occLevel: string | null;
  readonly occTrend: number | null;
  readonly lon: number;
  readonly lat: number;
  /** Why figures of the answer were stored as NULL (impossible, or text where numbers are sent); each is in efa.rejects. */
  readonly problems?: readonly string[];
}

/** efa.parking_snapshots: declared once; its comments are generated from this, its partitions made per UTC day. */
export const parkingSnapshotsTable: TableDefinition = {
  schema: 'efa',
  name: 'parking_snapshots',
  comment:
    'Parking occupancy over time: one row per parking object per snapshot (sweeps.parking, parkObjInfoRealtime), appended with one COPY per snapshot, partitioned by UTC day, old days dropped whole.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key for GIS tools (unique in practice; PostgreSQL allows no unique constraint without the partition key).' },
    { name: 'taken_at', type: 'timestamp with time zone', notNull: true, comment: 'The snapshot time (the partition key).' },
    { name: 'run_id', type: 'bigint', notNull: true, comment: 'The snapshot run.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment.' },
    { name: 'parking_key', type: 'text', notNull: true, comment: "The parking object's id as sent (the kind and a hash of name and place where it has none, as efa.pins.pin_key)." },
    { name: 'name', type: 'text', comment: 'Display name.' },
    { name: 'kind', type: 'integer', comment: 'parkingObjectType bit (1 multi-storey, 2 car park, 4 single space, 8 zone, 32 charging points).' },
    { name: 'capacity', type: 'integer', comment: 'Places in total, a count of 0 or more; NULL when the answer had none or an impossible one (see efa.rejects).' },
    { name: 'free', type: 'integer', comment: 'Free places (real-time occupancy), a count in [0, capacity]; NULL when the answer had none, or had one that is impossible or text where the dialect sends numbers (the figure as sent and why are in efa.rejects of the run).' },
    { name: 'occupied', type: 'integer', comment: 'Occupied places, where the answer says, a count in [0, capacity]; NULL as for free.' },
    { name: 'geom', type: 'geometry(Point,4326)', notNull: true, comment: 'Position (Point, EPSG:4326).' },
    { name: 'data_source', type: 'text', comment: "Where free is from: REALTIME (measured), PROFILE (a forecast from the object's day curve, rapidJSON parkingDataSet.dataSource) or UNKNOWN (the answer names no source); NULL when the answer had no figure. json and legacy realtime/freeSpaces figures are REALTIME. The views count only REALTIME as measured." },
    { name: 'measured_at', type: 'timestamp with time zone', comment: "When the figure was measured (rapidJSON parkingDataSet.measuredAt): with its offset as written, or without one as wall time in the run's time zone (efa.runs.time_zone). NULL when the answer gives no time (taken_at is when it was read)." },
    { name: 'occ', type: 'real', comment: "rapidJSON parkingDataSet.occ as sent (the deployment's occupancy figure)." },
    { name: 'occ_los', type: 'real', comment: 'rapidJSON parkingDataSet.occLOS as sent (occupancy level of service).' },
    { name: 'occ_level', type: 'text', comment: "rapidJSON parkingDataSet.occLevel as sent (the deployment's occupancy word)." },
    { name: 'occ_trend', type: 'real', comment: 'rapidJSON parkingDataSet.occTrend as sent (filling or emptying).' },
  ],
  primaryKey: ['taken_at', 'run_id', 'parking_key'],
  constraints: [{ name: 'parking_snapshots_data_source_check', sql: "CHECK (data_source IN ('REALTIME', 'PROFILE', 'UNKNOWN'))" }],
  indexes: [
    { name: 'parking_snapshots_geom_idx', using: 'gist', on: ['geom'] },
    { name: 'parking_snapshots_key_idx', on: ['source', 'parking_key', 'taken_at DESC'] },
  ],
  partitionBy: 'RANGE (taken_at)',
};

export const parkingSnapshots: SnapshotRelation<ParkingRow> = {
  kind: 'parking',
  key: 'parking_key',
  table: parkingSnapshotsTable,
  columns: [
    { name: 'parking_key', value: (p) => p.parkingKey },
    { name: 'name', value: (p) => p.name },
    { name: 'kind', value: (p) => p.kind },
    { name: 'capacity', value: (p) => p.capacity },
    { name: 'free', value: (p) => p.free },
    { name: 'occupied', value: (p) => p.occupied },
    { name: 'geom', value: (p) => pointEwkbHex(p.lon, p.lat) },
    { name: 'data_source', value: (p) => p.dataSource },
    { name: 'measured_at', value: (p) => p.measuredAt?.toISOString() ?? null },
    { name: 'occ', value: (p) => p.occ },
    { name: 'occ_los', value: (p) => p.occLos },
    { name: 'occ_level', value: (p) => p.occLevel },
    { name: 'occ_trend', value: (p) => p.occTrend },
  ],
};
