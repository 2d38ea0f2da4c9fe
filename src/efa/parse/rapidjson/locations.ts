import { z } from 'zod';
import { PARKING, type Location, type Pin } from '../../records.js';
import { envelopeList, isObject, parseEach, RecordProblemError, restOf, type ParseContext, type Parsed } from '../common.js';
import { idSchema, kindSchema, numberSchema, optional, optionalIdSchema } from '../fields.js';
import { globalIdOf, recordAttributes } from '../global-id.js';
import { numberPairSchema, readLatLon, sortedMots, TextRepairs } from './common.js';

/**
 * rapidJSON `locations[]`, the list both CoordInfo and StopFinder answer with. Each entry carries a
 * lower-case `type` (stop, platform, poi, street, suburb, gisPoint, ...), `coord` as [lat, lon],
 * MOT ids as `productClasses` (NVBW, TfNSW coord) or `modes` (TfNSW stop finder), a `parent`
 * chain (platform -> stop -> locality) and deployment-specific `properties`.
 */
const motListSchema = optional(z.array(z.int().nonnegative()));

const locationFields = {
  name: z.string(),
  type: kindSchema,
  productClasses: motListSchema,
  modes: motListSchema,
  properties: optional(z.record(z.string(), z.unknown())),
  isGlobalId: optional(z.boolean()),
};

const wirePinSchema = z.looseObject({ ...locationFields, id: optionalIdSchema, coord: numberPairSchema });

const wireAssignedStopSchema = z.looseObject({ id: idSchema, name: z.string() });

const wireLocationSchema = z.looseObject({
  ...locationFields,
  id: idSchema,
  coord: optional(numberPairSchema),
  // Only the best match needs flagging; it is not necessarily the first entry.
  isBest: optional(z.boolean()).transform((value) => value ?? false),
  matchQuality: numberSchema,
  assignedStops: optional(z.array(wireAssignedStopSchema)),
});

const MAPPED = ['id', 'name', 'type', 'coord', 'productClasses', 'modes', 'properties'] as const;

/** rapidJSON location kinds that name one object type whatever was asked. */
const OBJECT_TYPE_OF_KIND: Readonly<Record<string, string>> = {
  stop: 'STOP',
  // What a BUS_POINT search returns (TfNSW sample).
  platform: 'BUS_POINT',
  busPoint: 'BUS_POINT',
  gisPoint: 'GIS_POINT',
  gisArea: 'GIS_AREA',
  poiPoint: 'POI_POINT',
  poiArea: 'POI_AREA',
  street: 'STREET',
  entrance: 'ENTRANCE',
  infrastructure: 'INFRASTRUCTURE',
  line: 'LINE',
  // Parking objects and sharing vehicles (parkObjInfo, vehicle searches) keep efa-sync's own types.
  parking: PARKING,
  sharing: 'SHARING',
  // The rest of the published schema's location.type enum. An address or a crossing is a point on
  // a street; a locality or a suburb is a named area of the map (GIS); a POI hierarchy entry is a POI.
  address: 'STREET',
  crossing: 'STREET',
  locality: 'GIS_AREA',
  suburb: 'GIS_AREA',
};

/**
 * The EFA object type (efa-api.md) of a rapidJSON location kind, so every dialect stores the same
 * pin types; the kind itself stays in `attrs.rapidType`. `poi` is a POI_POINT unless its draw
 * class says AREA; `gis` (what a real TfNSW deployment answers to a GIS_POINT search) is the GIS
 * type the request asked for, GIS_POINT when it asked for none or both. A kind that names no object
 * type is the request's type when it asked for exactly one; otherwise it is a RecordProblemError (a
 * reject): guessing a type would put the pin outside the scope its deletions are judged in.
 */
export function pinTypeOf(
  kind: string,
  properties: Readonly<Record<string, unknown>> | undefined,
  requestedTypes: readonly string[] = [],
): string {
  const known = OBJECT_TYPE_OF_KIND[kind];
  if (known !== undefined) return known;
  if (kind === 'poi' || kind === 'poiHierarchy') return properties?.['POI_DRAW_CLASS_TYPE'] === 'AREA' ? 'POI_AREA' : 'POI_POINT';
  if (kind === 'gis') return requestedTypes.includes('GIS_AREA') && !requestedTypes.includes('GIS_POINT') ? 'GIS_AREA' : 'GIS_POINT';
  // `unknown` (the schema's default) and any word outside the enum: only the request can say.
  const asked = [...new Set(requestedTypes.filter((type) => type !== 'ANY'))];
  if (asked.length === 1 && !requestedTypes.includes('ANY') && asked[0] !== undefined) return asked[0];
  throw new RecordProblemError(['type'], `rapidJSON location type "${kind}" names none of the object types`);
}

/** IDs of the `parent` chain, nearest first (a platform's stop, then its locality). */
export function parentIds(parent: unknown): string[] {
  const ids: string[] = [];
  let node = parent;
  // A depth limit, since nothing guarantees the chain ends.
  for (let depth = 0; isObject(node) && depth < 10; depth += 1) {
    const id = node['id'];
    if (typeof id === 'string' || typeof id === 'number') ids.push(String(id));
    node = node['parent'];
  }
  return ids;
}

/** `properties` flattened into attrs (they are what json's extra fields are), then the unmapped rest. */
function locationAttrs(raw: Record<string, unknown>, properties: Record<string, unknown> | undefined, known: readonly string[]) {
  const parents = parentIds(raw['parent']);
  return {
    ...properties,
    ...restOf(raw, known),
    ...(parents.length === 0 ? {} : { parentIds: parents }),
  };
}

/** Sorted MOT ids from `productClasses` (NVBW, TfNSW coord) or `modes` (TfNSW stop finder). */
function motsOf(wire: { productClasses?: number[] | undefined; modes?: number[] | undefined }): number[] | undefined {
  const mots = wire.productClasses ?? wire.modes;
  return mots === undefined ? undefined : sortedMots(mots);
}

/**
 * CoordInfo. A platform stays its own pin (type BUS_POINT, its own id and coordinate); the stop
 * and locality above it are only named in `attrs.parentIds`, with the raw chain in `attrs.parent`.
 * Id and name are kept as sent.
 */
export function parseRapidPins(body: unknown, context: ParseContext = {}): Parsed<Pin> {
  const items = envelopeList(body, 'locations');
  return parseEach('coordInfo', ['locations'], items, wirePinSchema, (wire, raw, path) => {
    const repairs = new TextRepairs();
    const type = pinTypeOf(wire.type, wire.properties, context.requestedTypes);
    const globalId = globalIdOf({
      id: wire.id,
      attributes: recordAttributes(raw),
      stopPoint: type === 'BUS_POINT',
      idIsGlobal: wire.isGlobalId === true,
    });
    return {
      type,
      ...(wire.id === undefined ? {} : { id: wire.id }),
      name: repairs.name(wire.name),
      coord: readLatLon(wire.coord, [...path, 'coord']),
      motTypes: motsOf(wire) ?? [],
      ...(globalId === undefined ? {} : { globalId }),
      // The raw kind (platform, poi, gis, ...) is kept: the pin type alone loses it.
      attrs: { ...locationAttrs(raw, wire.properties, MAPPED), rapidType: wire.type, ...repairs.attrs() },
    };
  });
}

/** StopFinder. `type` stays the lower-case kind, as in the json dialect; order is the server's. */
export function parseRapidLocations(body: unknown): Parsed<Location> {
  const items = envelopeList(body, 'locations');
  return parseEach('stopFinder', ['locations'], items, wireLocationSchema, (wire, raw, path) => {
    const repairs = new TextRepairs();
    const assignedStops = wire.assignedStops?.map((stop) => ({ id: stop.id, name: stop.name, attrs: restOf(stop, ['id', 'name']) }));
    const motTypes = motsOf(wire);
    const globalId = globalIdOf({
      id: wire.id,
      attributes: recordAttributes(raw),
      stopPoint: wire.type === 'platform',
      idIsGlobal: wire.isGlobalId === true,
    });
    return {
      id: wire.id,
      name: repairs.name(wire.name),
      type: wire.type,
      isBest: wire.isBest,
      matchQuality: wire.matchQuality,
      ...(wire.coord === undefined ? {} : { coord: readLatLon(wire.coord, [...path, 'coord']) }),
      ...(assignedStops === undefined ? {} : { assignedStops }),
      ...(motTypes === undefined ? {} : { motTypes }),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: {
        ...locationAttrs(raw, wire.properties, [...MAPPED, 'isBest', 'matchQuality', 'assignedStops']),
        // Kept here too, where readers of earlier versions found it.
        ...(motTypes === undefined ? {} : { motTypes }),
        ...repairs.attrs(),
      },
    };
  });
}
