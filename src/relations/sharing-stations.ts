import { pointEwkbHex } from '../db/ewkb.js';
import type { SharingStation } from '../efa/records.js';
import type { Job } from '../job/index.js';
import { columnLists, json, type Entity } from './entity.js';
import { contentHash } from './hash.js';
import type { TableDefinition } from './table.js';

/**
 * efa.sharing_stations: stations of station-based sharing, read off the CoordInfo answers the
 * nightly sweep already asks (src/efa/parse/stations.ts): no request of their own.
 * Key: provider and station id (`<provider>/<station>`), as providers number their stations.
 * Content: name, place, area, number, address, slots per kind and whether it is out of service.
 * The vehicles standing there and the empty slots change by the minute; they are the snapshots'
 * (efa.vehicle_snapshots.station_slots), so an unchanged station writes nothing at night.
 * Deletion scope: a coord sweep that lists sharing objects (type ANY), the job's region, and only
 * where a complete CoordInfo tile of the run owns the place (efa.gone_sharing_stations, as pins).
 */
export interface StationRow {
  readonly station_key: string;
  readonly provider_id: string;
  readonly station_id: string;
  readonly name: string;
  readonly lon: number;
  readonly lat: number;
  readonly operating_area_id: string | null;
  readonly station_number: string | null;
  readonly address: string | null;
  /** Slots per vehicle kind (the schema's `<kind>Slots.totalSlots`), kinds that send no total left out. */
  readonly slots: Record<string, number>;
  readonly out_of_service: boolean | null;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

export const stationKey = (providerId: string, stationId: string): string => `${providerId}/${stationId}`;

/** ~1 cm, as pins: what counts as "moved". */
const round7 = (x: number): number => Number(x.toFixed(7));

export function toStationRow(station: SharingStation): StationRow {
  // Read off pins whose text parseEach made storable (efa/text/storable.ts).
  const s = station;
  const slots: Record<string, number> = {};
  for (const kind of Object.keys(s.slots).sort()) {
    const total = s.slots[kind]?.total;
    if (total !== null && total !== undefined) slots[kind] = total;
  }
  const row = {
    provider_id: s.providerId,
    station_id: s.id,
    name: s.name,
    lon: round7(s.coord.lon),
    lat: round7(s.coord.lat),
    operating_area_id: s.operatingAreaId ?? null,
    station_number: s.number ?? null,
    address: s.address ?? null,
    slots,
    out_of_service: s.outOfService ?? null,
    attrs: s.attrs,
  };
  return { station_key: stationKey(s.providerId, s.id), ...row, content_hash: contentHash(row) };
}

/** efa.sharing_stations: declared once; its table, history, as-of functions and comments are generated from this. */
export const sharingStationsTable: TableDefinition = {
  schema: 'efa',
  name: 'sharing_stations',
  comment:
    'Stations of station-based sharing (bike and car stations), read off the CoordInfo answers of the nightly sweep: rapidJSON coordInfoDetails.station of a station listed alone or of a vehicle standing at it (the json and legacy dialects where their pins carry the same object). fid is the integer key for QGIS and GDAL; (source, station_key) and (source, provider_id, station_id) are unique.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row (the single-column key for QGIS and GDAL).' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) whose answers carried the station.' },
    { name: 'station_key', type: 'text', notNull: true, comment: "provider_id || '/' || station_id: the station's text key within its source (efa.changes and efa.run_seen name it)." },
    { name: 'provider_id', type: 'text', notNull: true, comment: 'The provider (efa.sharing_providers.provider_id): coordInfoDetails.station.providerId, else coordInfoDetails.providerId, else the second part of the SharingRefId the location is named by (as text).' },
    { name: 'station_id', type: 'text', notNull: true, comment: "coordInfoDetails.station.id (as text); for a station listed alone without one, the first part of its location's id." },
    { name: 'name', type: 'text', notNull: true, comment: "coordInfoDetails.station.name, else the listing location's name; empty when neither names it." },
    { name: 'geom', type: 'geometry(Point,4326)', comment: "coordInfoDetails.station.coord ([lat, lon]) as a lon/lat point, EPSG:4326; without it the position of the location that stands at the station (coordInfoDetails.type STATION)." },
    { name: 'operating_area_id', type: 'text', comment: 'The operating area (efa.operating_areas.area_id of the provider): station.operatingAreaId, else coordInfoDetails.operatingAreaId; NULL when neither is sent.' },
    { name: 'station_number', type: 'text', comment: 'station.stNum: the number the provider shows at the station; NULL when not sent.' },
    { name: 'address', type: 'text', comment: 'station.addr as sent; NULL when not sent.' },
    { name: 'slots', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: "Slots per vehicle kind, from the schema's <kind>Slots.totalSlots: {\"bike\": 12, \"eBike\": 4} (car, carCombustion, carHybrid, carElectric, motorcycle…, bike, eBike, combined). Empty slots and vehicles standing there change by the minute and are not kept here: efa.vehicle_snapshots.station_slots has them per snapshot." },
    { name: 'out_of_service', type: 'boolean', comment: 'station.oOS: the station is out of service; NULL when the answer does not say.' },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: "Every other field of the station as received (JSON: providerName, operatingAreaName, …); not its vehicles[] nor lastUpdate, which change by the minute." },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row; changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the station.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the station's content." },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: 'When a complete CoordInfo tile that owns its place no longer listed the station; NULL while it exists.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'sharing_stations_source_key_uq', sql: 'UNIQUE (source, station_key)' },
    { name: 'sharing_stations_source_provider_station_uq', sql: 'UNIQUE (source, provider_id, station_id)' },
  ],
  indexes: [{ name: 'sharing_stations_geom_gix', using: 'gist', on: ['geom'] }],
  history: { key: 'station_key', gone: 'deleted_at', label: 'sharing stations' },
};

/** Stations are looked for where sharing objects are: a coord sweep of type ANY (the simulator and rapidJSON list them there). */
function stationScope(job: Job): Record<string, unknown> | undefined {
  const coord = job.sweeps.coord;
  return coord?.types.includes('ANY') ? { any: true } : undefined;
}

export const sharingStations: Entity<StationRow> = {
  relation: 'sharing_stations',
  table: sharingStationsTable,
  key: 'station_key',
  goneColumn: 'deleted_at',
  keyOf: (r) => r.station_key,
  hashOf: (r) => r.content_hash,
  after: [],
  goneAfter: [],
  ...columnLists<StationRow>(
    [
      { name: 'provider_id', type: 'text', value: (r) => r.provider_id },
      { name: 'station_id', type: 'text', value: (r) => r.station_id },
      { name: 'name', type: 'text', value: (r) => r.name },
      // Hex EWKB, staged and COPYed alike (as pins).
      { name: 'geom', type: 'geometry', value: (r) => pointEwkbHex(r.lon, r.lat) },
      { name: 'operating_area_id', type: 'text', value: (r) => r.operating_area_id },
      { name: 'station_number', type: 'text', value: (r) => r.station_number },
      { name: 'address', type: 'text', value: (r) => r.address },
      { name: 'slots', type: 'jsonb', value: (r) => json(r.slots) },
      { name: 'out_of_service', type: 'boolean', value: (r) => r.out_of_service },
      { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
    ],
    { direct: true },
  ),
  scopeOf: stationScope,
};
