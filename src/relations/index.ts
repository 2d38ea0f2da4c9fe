import type { Job, ResolvedRegion } from '../job/index.js';
import { regionBBox } from '../tiling/index.js';
import { RELATIONS, type Entity, type Relation } from './entity.js';
import { lines } from './lines.js';
import { notices } from './notices.js';
import { pins } from './pins.js';
import { operatingAreas, sharingProviders } from './sharing.js';
import { sharingStations } from './sharing-stations.js';
import { stopLines } from './stop-lines.js';
import { parkingSnapshots } from './parking-snapshots/index.js';
import type { SnapshotKind, SnapshotRelation } from './snapshot-relation.js';
import { vehicleSnapshots } from './vehicle-snapshots/index.js';

export * from './entity.js';
export * from './table.js';
export { contentHash, stableJson } from './hash.js';
export { pinKey, pins, pinsTable, sweptPinTypes, toPinRow, type PinRow } from './pins.js';
export { lineKey, lines, linesTable, toLineRow, type LineRow } from './lines.js';
export { pairKey, stopLines, stopLinesTable, type StopLineRow } from './stop-lines.js';
export { notices, noticesTable, toNoticeRow, withPublication, type NoticeRow } from './notices.js';
export { areaKey, operatingAreas, operatingAreasTable, repairedAreaGeometry, sharingProviders, sharingProvidersTable, toProviderRows, type AreaRow, type PolygonRings, type ProviderRow } from './sharing.js';
export { sharingStations, sharingStationsTable, stationKey, toStationRow, type StationRow } from './sharing-stations.js';
export * from './snapshot-relation.js';
export * from './vehicle-snapshots/index.js';
export * from './parking-snapshots/index.js';

/** Every entity, by relation; their order is what each says it comes `after` (ordered). */
export const entities: { readonly [R in Relation]: Entity<never> } = {
  pins,
  lines,
  stop_lines: stopLines,
  notices,
  sharing_providers: sharingProviders,
  operating_areas: operatingAreas,
  sharing_stations: sharingStations,
} as { readonly [R in Relation]: Entity<never> };

/** The time series a snapshot appends to, by kind; in write order. */
export const snapshotRelationOf: { readonly [K in SnapshotKind]: SnapshotRelation<never> } = {
  vehicles: vehicleSnapshots as SnapshotRelation<never>,
  parking: parkingSnapshots as SnapshotRelation<never>,
};
export const snapshotRelations: readonly SnapshotRelation<never>[] = Object.values(snapshotRelationOf);

/**
 * The relations in an order where each comes after those it names under `edge`: `after` for
 * writing (a pair after its line), `goneAfter` for marking gone (a line after the pairs that serve
 * it). Ties keep RELATIONS' order. The one place an order of relations is decided.
 */
export function ordered(edge: 'after' | 'goneAfter'): Relation[] {
  const out: Relation[] = [];
  const visit = (r: Relation, path: readonly Relation[]): void => {
    if (out.includes(r)) return;
    if (path.includes(r)) throw new Error(`relations ${[...path, r].join(' -> ')} name each other under ${edge}`);
    for (const before of entities[r][edge]) visit(before, [...path, r]);
    out.push(r);
  };
  for (const r of RELATIONS) visit(r, []);
  return out;
}

/**
 * What a run looks at, recorded in efa.runs.scope before it sweeps: its source, its region (the
 * deletion predicates test pins against it; regionMax closes the last tile's half-open edges), and
 * per relation the entity's own scope. The SQL predicates of sql/004 read only this record.
 */
export interface RunScope {
  readonly source: string;
  readonly region: string;
  readonly regionMax: readonly [number, number];
  readonly relations: Partial<Record<Relation, Readonly<Record<string, unknown>>>>;
}

export function regionGeoJson(region: ResolvedRegion): Record<string, unknown> {
  if ('geojson' in region) return region.geojson as unknown as Record<string, unknown>;
  const [x0, y0, x1, y1] = region.bbox;
  return { type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
}

export function sourceOf(job: Job): string {
  return job.source ?? job.name;
}

export function runScope(job: Job, region: ResolvedRegion): RunScope {
  const relations: RunScope['relations'] = {};
  for (const relation of RELATIONS) {
    const scope = entities[relation].scopeOf(job);
    if (scope) relations[relation] = scope;
  }
  const [, , maxX, maxY] = regionBBox(region);
  return { source: sourceOf(job), region: JSON.stringify(regionGeoJson(region)), regionMax: [maxX, maxY], relations };
}
