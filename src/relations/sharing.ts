import type { Area, Provider } from '../efa/records.js';
import type { Job } from '../job/index.js';
import { columnLists, json, type Entity } from './entity.js';
import { contentHash, stripNul } from './hash.js';

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
  const p = stripNul(provider);
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

export const sharingProviders: Entity<ProviderRow> = {
  relation: 'sharing_providers',
  table: 'efa.sharing_providers',
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

export const operatingAreas: Entity<AreaRow> = {
  relation: 'operating_areas',
  table: 'efa.operating_areas',
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
