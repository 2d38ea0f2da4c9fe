import type { Area, Provider } from '../efa/records.js';
import type { Job } from '../job/index.js';
import { columnLists, json, type Entity } from './entity.js';
import type { TableDefinition } from './table.js';
import { contentHash } from './hash.js';

/**
 * efa.sharing_providers and efa.operating_areas, from OpArea answers. Keys: the provider id, and
 * `provider/area`. Deletion scope: every OpArea request of the run complete, under the same mode,
 * vehicle kinds, radius and (for RADIAL or clipped sweeps) region.
 */
export interface ProviderRow {
  readonly provider_id: string;
  readonly name: string;
  readonly vehicle_type: string | null;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
}

export interface AreaRow {
  readonly area_key: string;
  readonly provider_id: string;
  readonly area_id: string;
  readonly name: string | null;
  /** GeoJSON Polygon or MultiPolygon text in lon/lat order, or null when the answer had no geometry. Repaired in SQL. */
  readonly geojson: string | null;
  /** Whether the area touches the job's region (null: no geometry). */
  readonly in_region: boolean | null;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
  /** The area as received, for efa.rejects when its geometry cannot be repaired. */
  readonly raw: unknown;
}

export function areaKey(providerId: string, areaId: string): string {
  return `${providerId}/${areaId}`;
}

/** Rings of one polygon, [lon, lat]. */
export type PolygonRings = readonly (readonly (readonly [number, number])[])[];

const swapped = (polygons: readonly PolygonRings[]): [number, number][][][] =>
  polygons.map((rings) => rings.map((ring) => ring.map(([a, b]): [number, number] => [b, a])));

/**
 * The area's polygons in [lon, lat] order and how that order was decided. A GeoJSON zone whose
 * values fit both orders was read as GeoJSON ([lon, lat]); if it then lies outside the job's
 * region and read the other way round inside it, the answer wrote [lat, lon] (EFA's own order)
 * and it is turned. Said in attrs (`coordOrder`, `coordOrderBy`), so an analyst can check it.
 */
function orientedPolygons(
  polygons: readonly PolygonRings[],
  order: Area['coordOrder'],
  touches: (polygons: readonly PolygonRings[]) => boolean,
): { polygons: readonly PolygonRings[]; attrs: Record<string, unknown> } {
  if (order === undefined) return { polygons, attrs: {} };
  if (order !== 'ambiguous') return { polygons, attrs: { coordOrder: order, coordOrderBy: 'values' } };
  const turned = swapped(polygons);
  if (!touches(polygons) && touches(turned)) return { polygons: turned, attrs: { coordOrder: 'latLon', coordOrderBy: 'region' } };
  return { polygons, attrs: { coordOrder: 'lonLat', coordOrderBy: touches(polygons) ? 'region' : 'GeoJSON' } };
}

/** GeoJSON text of the polygons: a Polygon for one (as rows were always written), else a MultiPolygon. */
function geoJsonOf(polygons: readonly PolygonRings[]): string {
  return polygons.length === 1
    ? JSON.stringify({ type: 'Polygon', coordinates: polygons[0] })
    : JSON.stringify({ type: 'MultiPolygon', coordinates: polygons });
}

/** `inRegion` tells whether an area's rings (one polygon) touch the job's region. */
export function toProviderRows(
  provider: Provider,
  inRegion: (rings: PolygonRings) => boolean = () => true,
): { provider: ProviderRow; areas: AreaRow[] } {
  // The provider's text is storable already: parseEach made it so (efa/text/storable.ts).
  const p = provider;
  const row = { name: p.name, vehicle_type: p.vehicleType || null, attrs: p.attrs };
  const touches = (polygons: readonly PolygonRings[]): boolean => polygons.some((rings) => inRegion(rings));
  const areas = p.areas.map((a): AreaRow => {
    const oriented = a.polygons ? orientedPolygons(a.polygons, a.coordOrder, touches) : undefined;
    const attrs = { ...a.attrs, ...(a.ringsClosedByParser ? { ringsClosedByParser: true } : {}), ...oriented?.attrs };
    const geojson = oriented ? geoJsonOf(oriented.polygons) : null;
    const in_region = oriented ? touches(oriented.polygons) : null;
    const body = { provider_id: p.id, area_id: a.id, name: a.name, geojson, attrs };
    // Only an area outside the region carries the flag in its hash: rows written before the flag
    // existed (inside the region, the common case) keep their hash and are not rewritten.
    const hashed = in_region === false ? { ...body, in_region } : body;
    return { area_key: areaKey(p.id, a.id), ...body, in_region, content_hash: contentHash(hashed), raw: a };
  });
  return { provider: { provider_id: p.id, ...row, content_hash: contentHash(row) }, areas };
}

/** The SQL that turns a received ring set into a valid MultiPolygon (or an empty one: unrepairable). */
export const repairedAreaGeometry =
  'ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_SetSRID(ST_GeomFromGeoJSON(geojson), 4326)), 3))';

function opAreaScope(job: Job): Record<string, unknown> | undefined {
  const cfg = job.sweeps.opArea;
  if (!cfg) return undefined;
  const regional = cfg.mode === 'RADIAL' || cfg.clipToRegion;
  return {
    mode: cfg.mode,
    vehicleKinds: cfg.vehicleKinds ? [...cfg.vehicleKinds].sort() : null,
    radiusM: cfg.radiusM ?? null,
    clipToRegion: cfg.clipToRegion,
    ...(regional ? { region: job.region } : {}),
  };
}

/** efa.sharing_providers: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const sharingProvidersTable: TableDefinition = {
  schema: 'efa',
  name: 'sharing_providers',
  comment:
    'Bike, car and scooter sharing providers from OpArea answers: providers[] (efa-api.md), or one per operator of rapidJSON operatingAreas[] (the published schema).',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row.' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) that named the provider.' },
    { name: 'provider_id', type: 'text', notNull: true, comment: 'OpArea providers[].id, or rapidJSON operatingAreas[].operator.id (as text).' },
    { name: 'name', type: 'text', notNull: true, comment: "OpArea providers[].name, or rapidJSON operatingAreas[].operator.name (of the operator's first area; other spellings in attrs.otherNames)." },
    { name: 'vehicle_type', type: 'text', comment: "OpArea providers[].vehicleType, e.g. BIKE, CAR; for rapidJSON operatingAreas[] the products of the operator's areas in capitals, comma-joined (BIKE,MOTORCYCLE); NULL when empty." },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: "Every other field of the provider as received (JSON), areas excepted (efa.operating_areas); for rapidJSON operatingAreas[] the operator's products, areaTypes, vehicleEngineTypes, vehicleTypes and sharingTypes over its areas." },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row; changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the provider.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the provider's content." },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: 'When a complete OpArea sweep no longer returned the provider; NULL while it exists.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'sharing_providers_source_key_uq', sql: 'UNIQUE (source, provider_id)' },
  ],
  indexes: [],
  history: { key: 'provider_id', gone: 'deleted_at', label: 'sharing providers' },
};

export const sharingProviders: Entity<ProviderRow> = {
  relation: 'sharing_providers',
  table: sharingProvidersTable,
  deletion: {
    whenComplete: 'opArea',
    comment: 'Sharing providers of the source the run\'s complete OpArea sweep no longer has, seen before in the same scope.',
  },
  key: 'provider_id',
  goneColumn: 'deleted_at',
  keyOf: (r) => r.provider_id,
  hashOf: (r) => r.content_hash,
  after: [],
  goneAfter: [],
  ...columnLists<ProviderRow>(
    [
      { name: 'name', type: 'text', value: (r) => r.name },
      { name: 'vehicle_type', type: 'text', value: (r) => r.vehicle_type },
      { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
    ],
    { direct: false },
  ),
  scopeOf: opAreaScope,
};

/** efa.operating_areas: declared once; its SQL is generated from this (table.ts, history-sql.ts). */
export const operatingAreasTable: TableDefinition = {
  schema: 'efa',
  name: 'operating_areas',
  comment:
    'Operating areas of sharing providers from OpArea answers (providers[].areas[], or rapidJSON operatingAreas[]; geometry with operatingZoneGeometry=1). fid is the integer key for QGIS and GDAL; (source, area_key) and (source, provider_id, area_id) are unique.',
  columns: [
    { name: 'fid', type: 'bigint', notNull: true, identity: true, comment: 'Integer key of the row (the single-column key for QGIS and GDAL).' },
    { name: 'source', type: 'text', notNull: true, comment: 'The deployment (source) that named the area.' },
    { name: 'area_key', type: 'text', notNull: true, comment: "provider_id || '/' || area_id: the area's text key within its source (efa.changes and efa.run_seen name it). GDAL and QGIS use fid, the integer key." },
    { name: 'provider_id', type: 'text', notNull: true, comment: 'The owning provider (efa.sharing_providers): providers[].id, or rapidJSON operatingAreas[].operator.id.' },
    { name: 'area_id', type: 'text', notNull: true, comment: 'OpArea providers[].areas[].id, or rapidJSON operatingAreas[].id (as text).' },
    { name: 'name', type: 'text', comment: 'OpArea providers[].areas[].name, or rapidJSON operatingAreas[].name.' },
    { name: 'geom', type: 'geometry(MultiPolygon,4326)', comment: 'The area as a valid MultiPolygon, EPSG:4326: providers[].areas[].polygon ([lat, lon] points turned into lon/lat rings), or rapidJSON operatingAreas[].operatingZone (GeoJSON; every polygon and hole kept; its order in attrs.coordOrder); closed where the answer left rings open, made valid (ST_MakeValid). NULL when the answer carried no areal geometry. An unrepairable polygon goes to efa.rejects.' },
    { name: 'in_region', type: 'boolean', comment: 'Whether the area touches the region of the job that stored it (some deployments answer OpArea nationwide; opArea.clipToRegion keeps only these). NULL without geometry.' },
    { name: 'attrs', type: 'jsonb', notNull: true, default: "'{}'::jsonb", comment: 'Every other field of the area as received (JSON): for rapidJSON type, product, properties, the offered types and coverageArea as sent; ringsClosedByParser = true when a ring had to be closed; coordOrder (lonLat, latLon) and coordOrderBy (values, region, GeoJSON) for a GeoJSON zone; operatingZone and operatingZoneNotAreal when the zone was a point or a line.' },
    { name: 'content_hash', type: 'text', notNull: true, comment: 'SHA-1 of the normalised row (geometry as received included); changed_run moves only when it changes.' },
    { name: 'first_run', type: 'bigint', notNull: true, comment: 'The run that first stored the area.' },
    { name: 'changed_run', type: 'bigint', notNull: true, comment: "The last run that changed the area's content." },
    { name: 'deleted_at', type: 'timestamp with time zone', comment: 'When a complete OpArea sweep no longer returned the area; NULL while it exists.' },
  ],
  primaryKey: ['fid'],
  constraints: [
    { name: 'operating_areas_source_key_uq', sql: 'UNIQUE (source, area_key)' },
    { name: 'operating_areas_source_provider_area_uq', sql: 'UNIQUE (source, provider_id, area_id)' },
    { name: 'operating_areas_valid_chk', sql: 'CHECK (geom IS NULL OR ST_IsValid(geom))' },
  ],
  indexes: [
    { name: 'operating_areas_geom_gix', using: 'gist', on: ['geom'] },
  ],
  history: { key: 'area_key', gone: 'deleted_at', label: 'operating areas' },
};

export const operatingAreas: Entity<AreaRow> = {
  relation: 'operating_areas',
  table: operatingAreasTable,
  deletion: {
    whenComplete: 'opArea',
    comment: 'Operating areas of the source the run\'s complete OpArea sweep no longer has, seen before in the same scope.',
  },
  key: 'area_key',
  goneColumn: 'deleted_at',
  keyOf: (r) => r.area_key,
  hashOf: (r) => r.content_hash,
  // An area belongs to its provider.
  after: ['sharing_providers'],
  goneAfter: [],
  ...columnLists<AreaRow>(
    [
      { name: 'provider_id', type: 'text', value: (r) => r.provider_id },
      { name: 'area_id', type: 'text', value: (r) => r.area_id },
      { name: 'name', type: 'text', value: (r) => r.name },
      // Staged as the GeoJSON received, stored repaired (db/areas.ts says how).
      { name: 'geom', type: 'text', value: (r) => r.geojson, staged: 'geojson', expr: `CASE WHEN geojson IS NULL THEN NULL ELSE ${repairedAreaGeometry} END` },
      { name: 'in_region', type: 'boolean', value: (r) => r.in_region },
      { name: 'attrs', type: 'jsonb', value: (r) => json(r.attrs) },
    ],
    { direct: false },
  ),
  scopeOf: opAreaScope,
};
