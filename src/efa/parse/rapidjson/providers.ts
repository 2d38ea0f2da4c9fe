import { z } from 'zod';
import type { Area, Provider } from '../../records.js';
import { ImplausibleCoordinatesError, isObject, parseEach, restOf, ShapeMismatchError, type Parsed } from '../common.js';
import { idSchema, optional } from '../fields.js';
import { readGeoJsonAreas } from '../geojson.js';
import { parseProviderList } from '../providers.js';

/**
 * OpArea in the rapidJSON profile. The interface's published schema (OPAREA, `operatingArea` of
 * its definitions) answers `operatingAreas[]`: each area names its `operator` {id, name}, its
 * `type` (station, freefloating, private, unknown), `product` (car, motorcycle, bike, taxi,
 * unknown), `properties` (language, country, time zone, urls, apps, phone), the engine, vehicle
 * and sharing types it offers, and GeoJSON `operatingZone` and `coverageArea`. Deployments that
 * answer the efa-api.md shape (`providers[].areas[]`) are still read as before.
 *
 * One provider per operator id, its areas in answer order; the products, area types and offered
 * types of its areas are gathered into the provider's attrs (and the products into `vehicleType`).
 * The operating zone is the area's geometry, every polygon of it and every hole kept; the coverage
 * area stays in the area's attrs as sent. Ids and names are kept as sent.
 */
export function parseRapidProviders(body: unknown): Parsed<Provider> {
  if (!isObject(body)) throw new ShapeMismatchError([], `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  const areas = body['operatingAreas'];
  if (Array.isArray(areas)) return parseOperatingAreas(areas);
  if (areas !== undefined && areas !== null) throw new ShapeMismatchError(['operatingAreas'], `expected an array, got ${typeof areas}`);
  if (Array.isArray(body['providers'])) return parseProviderList(body['providers'], { implausible: 'stop' });
  throw new ShapeMismatchError(['operatingAreas'], 'missing (an OpArea answer lists operatingAreas[], or providers[] in the efa-api.md shape)');
}

const operatorSchema = z.looseObject({ id: idSchema, name: optional(z.string()).transform((value) => value ?? '') });
const wordSchema = optional(z.string());
const wordListSchema = optional(z.array(z.string())).transform((value) => value ?? []);

const wireAreaSchema = z.looseObject({
  id: idSchema,
  name: optional(z.string()).transform((value) => value ?? ''),
  // An area without its operator cannot be keyed under a provider (provider/area is the key).
  operator: operatorSchema,
  type: wordSchema,
  product: wordSchema,
  vehicleEngineTypes: wordListSchema,
  vehicleTypes: wordListSchema,
  sharingTypes: wordListSchema,
  operatingZone: z.unknown().optional(),
});

/** One area with its operator, before areas are gathered into providers. */
interface OperatedArea {
  readonly id: string;
  readonly name: string;
  readonly operatorId: string;
  readonly operatorName: string;
  readonly operatorRest: Record<string, unknown>;
  readonly product: string | undefined;
  readonly type: string | undefined;
  readonly offered: { readonly vehicleEngineTypes: string[]; readonly vehicleTypes: string[]; readonly sharingTypes: string[] };
  readonly area: Area;
}

function parseOperatingAreas(items: readonly unknown[]): Parsed<Provider> {
  const parsed = parseEach('opArea', 'operatingAreas', items, wireAreaSchema, (wire, raw, recordPath): OperatedArea => {
    const attrs: Record<string, unknown> = restOf(raw, ['id', 'name', 'operator', 'operatingZone']);
    let area: Area = { id: wire.id, name: wire.name, polygons: null, ringsClosedByParser: false, attrs };
    const zone = wire.operatingZone;
    if (zone !== undefined && zone !== null) {
      const geometry = readZone(zone, recordPath);
      if (geometry.nonAreal.length > 0) attrs['operatingZoneNotAreal'] = geometry.nonAreal;
      // A zone that is a point or a line has no area: kept as sent, with no geometry stored.
      if (geometry.polygons.length === 0) attrs['operatingZone'] = zone;
      else area = { ...area, polygons: geometry.polygons, ringsClosedByParser: geometry.closedByParser, coordOrder: geometry.order };
    }
    return {
      id: wire.id,
      name: wire.name,
      operatorId: wire.operator.id,
      operatorName: wire.operator.name,
      operatorRest: restOf(wire.operator, ['id', 'name']),
      product: wire.product,
      type: wire.type,
      offered: { vehicleEngineTypes: wire.vehicleEngineTypes, vehicleTypes: wire.vehicleTypes, sharingTypes: wire.sharingTypes },
      area,
    };
  });
  return { records: gather(parsed.records), rejects: parsed.rejects };
}

/** A grid coordinate stops the run; its path is made absolute here (`operatingAreas[3].operatingZone`). */
function readZone(zone: unknown, recordPath: readonly PropertyKey[]) {
  try {
    return readGeoJsonAreas(zone, ['operatingZone']);
  } catch (error) {
    if (error instanceof ImplausibleCoordinatesError) throw new ImplausibleCoordinatesError([...recordPath, ...error.path], error.value, error.gridShaped);
    throw error;
  }
}

const sortedUnique = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** One provider per operator id, in the order operators first appear. */
function gather(areas: readonly OperatedArea[]): Provider[] {
  const byOperator = new Map<string, OperatedArea[]>();
  for (const area of areas) {
    const list = byOperator.get(area.operatorId);
    if (list) list.push(area);
    else byOperator.set(area.operatorId, [area]);
  }
  return [...byOperator.entries()].map(([id, list]) => {
    const first = list[0] as OperatedArea;
    const products = sortedUnique(list.flatMap((a) => (a.product === undefined ? [] : [a.product])));
    const lists = {
      products,
      areaTypes: sortedUnique(list.flatMap((a) => (a.type === undefined ? [] : [a.type]))),
      vehicleEngineTypes: sortedUnique(list.flatMap((a) => a.offered.vehicleEngineTypes)),
      vehicleTypes: sortedUnique(list.flatMap((a) => a.offered.vehicleTypes)),
      sharingTypes: sortedUnique(list.flatMap((a) => a.offered.sharingTypes)),
    };
    const names = sortedUnique(list.map((a) => a.operatorName).filter((name) => name !== first.operatorName));
    return {
      id,
      // The first area's spelling; another spelling of the same operator is kept beside it.
      name: first.operatorName,
      // The efa-api.md column in its upper-case words (BIKE, CAR); several products joined by commas.
      vehicleType: products.map((p) => p.toUpperCase()).join(','),
      areas: list.map((a) => a.area),
      attrs: {
        ...first.operatorRest,
        ...Object.fromEntries(Object.entries(lists).filter(([, values]) => values.length > 0)),
        ...(names.length > 0 ? { otherNames: names } : {}),
      },
    };
  });
}
