import type { Pin } from '../efa/records.js';
import type { CopyValue } from './entity.js';
import { pinKey } from './pins.js';
import type { TableDefinition } from './table.js';

/**
 * A snapshot relation: a time series appended once per snapshot (efa.vehicle_snapshots,
 * efa.parking_snapshots), where an entity relation (entity.ts) is merged night by night. Like an
 * entity it owns its table's declaration, its row and the COPY list derived from one column list;
 * it has no content hash, history or deletion predicate: a row is what one snapshot saw, and old
 * days are dropped whole (efa.drop_snapshot_partitions).
 */

export type SnapshotKind = 'vehicles' | 'parking';

/** The columns every row of a snapshot shares, written from the snapshot itself, not from the row. */
export const SNAPSHOT_COLUMNS = ['taken_at', 'run_id', 'source'] as const;

/** One column a row fills, in COPY order after SNAPSHOT_COLUMNS. */
export interface SnapshotColumn<Row> {
  readonly name: string;
  readonly value: (row: Row) => CopyValue;
}

export interface SnapshotRelation<Row> {
  readonly kind: SnapshotKind;
  /** The object's key column within a snapshot (with the time, the order the lake writes rows in). */
  readonly key: string;
  /** Partitioned by UTC day of taken_at; `fid` is the table's identity and never copied. */
  readonly table: TableDefinition;
  readonly columns: readonly SnapshotColumn<Row>[];
}

/** The key of a snapshot object: its id as sent, else the kind and a hash of name and place (as efa.pins). */
export const objectKey = (pin: Pin): string => pin.id ?? pinKey(pin);

/** The COPY column list of a snapshot relation. */
export function snapshotCopyColumns<Row>(r: SnapshotRelation<Row>): string[] {
  return [...SNAPSHOT_COLUMNS, ...r.columns.map((c) => c.name)];
}

/** A row's COPY values after those of the snapshot (`shared`: taken_at, run_id, source). */
export function snapshotCopyValues<Row>(r: SnapshotRelation<Row>, shared: readonly CopyValue[], row: Row): CopyValue[] {
  return [...shared, ...r.columns.map((c) => c.value(row))];
}
