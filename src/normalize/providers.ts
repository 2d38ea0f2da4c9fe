import type { Provider } from '../efa/records.js';
import { contentHash, stripNul } from './hash.js';

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
  /** GeoJSON Polygon text in lon/lat order, or null when the answer had no geometry. Repaired in SQL. */
  readonly geojson: string | null;
  readonly attrs: Record<string, unknown>;
  readonly content_hash: string;
  /** The area as received, for efa.rejects when its geometry cannot be repaired. */
  readonly raw: unknown;
}

export function areaKey(providerId: string, areaId: string): string {
  return `${providerId}/${areaId}`;
}

export function toProviderRows(provider: Provider): { provider: ProviderRow; areas: AreaRow[] } {
  const p = stripNul(provider);
  const row = { name: p.name, vehicle_type: p.vehicleType || null, attrs: p.attrs };
  const areas = p.areas.map((a): AreaRow => {
    const attrs = a.ringsClosedByParser ? { ...a.attrs, ringsClosedByParser: true } : a.attrs;
    const geojson = a.rings ? JSON.stringify({ type: 'Polygon', coordinates: a.rings }) : null;
    const body = { provider_id: p.id, area_id: a.id, name: a.name, geojson, attrs };
    return { area_key: areaKey(p.id, a.id), ...body, content_hash: contentHash(body), raw: a };
  });
  return { provider: { provider_id: p.id, ...row, content_hash: contentHash(row) }, areas };
}
