import type { ColumnType, Generated } from 'kysely';
import type { UnitStatus } from './unit-status.js';

/**
 * Kysely's view of the tables in sql/. The SQL files are the source of truth; this only types
 * the queries the code builds. Geometry columns are read through ST_* functions, never raw.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Geometry = ColumnType<string, string, string>;
type Json = ColumnType<unknown, string, string>;
/** A jsonb column with a default: optional on insert. */
type JsonWithDefault = ColumnType<unknown, string | undefined, string>;

export interface RunsTable {
  run_id: Generated<string>;
  job_name: string;
  job_hash: string;
  status: 'running' | 'succeeded' | 'partial' | 'failed' | 'stopped';
  started_at: Generated<Date>;
  finished_at: Timestamp | null;
  heartbeat_at: Timestamp | null;
  requests: Generated<number>;
  stats: JsonWithDefault;
  error: string | null;
  options: JsonWithDefault;
  messages: JsonWithDefault;
  resumed_from: string | null;
  pid: number | null;
  host: string | null;
  source: string;
  scope: JsonWithDefault;
  meta: JsonWithDefault;
  lease: string | null;
  /** The IANA zone the run read zone-less times in (sql/022). */
  time_zone: string | null;
}

export interface RunTilesTable {
  run_tile_id: Generated<string>;
  run_id: string;
  operation: string;
  tile_id: string;
  parent_id: string | null;
  depth: number;
  bbox: Geometry | null;
  status: UnitStatus;
  subject: string | null;
  /** CoordInfo: the types the tile's request asked for; NULL = every type of the job (sql/018). */
  types: string[] | null;
  attempts: number;
  hits: number;
  split: boolean;
  duration_ms: number;
  fetched_at: Generated<Date>;
  error: string | null;
}

interface Tracked {
  fid: Generated<string>;
  source: string;
  content_hash: string;
  first_run: string;
  changed_run: string;
}

export interface PinsTable extends Tracked {
  pin_key: string;
  type: string;
  id: string | null;
  name: string;
  mot_types: number[];
  geom: Geometry;
  global_id: string | null;
  attrs: Json;
  deleted_at: Timestamp | null;
}

export interface LinesTable extends Tracked {
  line_key: string;
  line_id: string | null;
  name: string;
  number: string;
  mot: number | null;
  direction: string;
  attrs: Json;
  deleted_at: Timestamp | null;
}

export interface StopLinesTable extends Tracked {
  pair_key: string;
  stop_id: string;
  line_key: string;
  deleted_at: Timestamp | null;
}

export interface RunSeenTable {
  run_id: string;
  source: string;
  relation: string;
  key: string;
}

export interface NoticesTable extends Tracked {
  notice_id: string;
  type: string;
  title: string;
  text: string;
  valid_from: ColumnType<string | null, string | null, string | null>;
  valid_to: ColumnType<string | null, string | null, string | null>;
  severity: string | null;
  lines: string[];
  attrs: Json;
  ended_at: Timestamp | null;
}

export interface SharingProvidersTable extends Tracked {
  provider_id: string;
  name: string;
  vehicle_type: string | null;
  attrs: Json;
  deleted_at: Timestamp | null;
}

export interface OperatingAreasTable extends Tracked {
  area_key: string;
  provider_id: string;
  area_id: string;
  name: string | null;
  geom: Geometry | null;
  in_region: boolean | null;
  attrs: Json;
  deleted_at: Timestamp | null;
}

export interface SharingStationsTable extends Tracked {
  station_key: string;
  provider_id: string;
  station_id: string;
  name: string;
  geom: Geometry | null;
  operating_area_id: string | null;
  station_number: string | null;
  address: string | null;
  slots: Json;
  out_of_service: boolean | null;
  attrs: Json;
  deleted_at: Timestamp | null;
}

export interface ChangesTable {
  change_id: Generated<string>;
  run_id: string;
  source: string;
  relation: string;
  key: string;
  op: 'insert' | 'update' | 'delete';
  detail: string | null;
  at: Generated<Date>;
}

export interface RejectsTable {
  reject_id: Generated<string>;
  run_id: string | null;
  source: string | null;
  unit: string | null;
  operation: string;
  reason: string;
  raw: Json;
  at: Generated<Date>;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: Generated<Date>;
}

export interface Database {
  'efa.runs': RunsTable;
  'efa.run_tiles': RunTilesTable;
  'efa.pins': PinsTable;
  'efa.lines': LinesTable;
  'efa.stop_lines': StopLinesTable;
  'efa.notices': NoticesTable;
  'efa.sharing_providers': SharingProvidersTable;
  'efa.operating_areas': OperatingAreasTable;
  'efa.sharing_stations': SharingStationsTable;
  'efa.run_seen': RunSeenTable;
  'efa.changes': ChangesTable;
  'efa.rejects': RejectsTable;
  'efa.schema_migrations': SchemaMigrationsTable;
}
