import { z } from 'zod';
import type { Location, Pin } from '../../records.js';
import { envelopeList, isObject, parseEach, restOf, type Parsed } from '../common.js';
import { idSchema, numberSchema, optional, optionalIdSchema } from '../fields.js';
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
  type: z.string().trim().min(1),
  productClasses: motListSchema,
  modes: motListSchema,
  properties: optional(z.record(z.string(), z.unknown())),
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

/**
 * The EFA object type of a rapidJSON location type, so every dialect yields the same pin types.
 * `platform` is what a BUS_POINT search returns (TfNSW sample); `poi` is a POI_POINT unless its
 * draw class says AREA; `gisPoint` becomes GIS_POINT, any other type is upper-cased likewise.
 */
export function pinTypeOf(type: string, properties: Readonly<Record<string, unknown>> | undefined): string {
  if (type === 'platform') return 'BUS_POINT';
  if (type === 'poi') return properties?.['POI_DRAW_CLASS_TYPE'] === 'AREA' ? 'POI_AREA' : 'POI_POINT';
  return type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
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

/**
 * CoordInfo. A platform stays its own pin (type BUS_POINT, its own id and coordinate); the stop
 * and locality above it are only named in `attrs.parentIds`, with the raw chain in `attrs.parent`.
 */
export function parseRapidPins(body: unknown): Parsed<Pin> {
  const items = envelopeList(body, 'locations');
  return parseEach('coordInfo', ['locations'], items, wirePinSchema, (wire, raw, path) => {
    const repairs = new TextRepairs();
    const name = repairs.text(wire.name);
    return {
      type: pinTypeOf(wire.type, wire.properties),
      ...(wire.id === undefined ? {} : { id: wire.id }),
      name,
      coord: readLatLon(wire.coord, [...path, 'coord']),
      motTypes: sortedMots(wire.productClasses ?? wire.modes ?? []),
      // The raw kind (platform, poi, ...) is kept: the pin type alone loses it for unknown kinds.
      attrs: { ...locationAttrs(raw, wire.properties, MAPPED), rapidType: wire.type, ...repairs.attrs() },
    };
  });
}

/** StopFinder. `type` stays the lower-case kind, as in the json dialect; order is the server's. */
export function parseRapidLocations(body: unknown): Parsed<Location> {
  const items = envelopeList(body, 'locations');
  return parseEach('stopFinder', ['locations'], items, wireLocationSchema, (wire, raw, path) => {
    const repairs = new TextRepairs();
    const name = repairs.text(wire.name);
    const assignedStops = wire.assignedStops?.map((stop) => ({
      id: stop.id,
      name: repairs.text(stop.name),
      attrs: restOf(stop, ['id', 'name']),
    }));
    const mots = wire.productClasses ?? wire.modes;
    return {
      id: wire.id,
      name,
      type: wire.type,
      isBest: wire.isBest,
      matchQuality: wire.matchQuality,
      ...(wire.coord === undefined ? {} : { coord: readLatLon(wire.coord, [...path, 'coord']) }),
      ...(assignedStops === undefined ? {} : { assignedStops }),
      attrs: {
        ...locationAttrs(raw, wire.properties, [...MAPPED, 'isBest', 'matchQuality', 'assignedStops']),
        ...(mots === undefined ? {} : { motTypes: sortedMots(mots) }),
        ...repairs.attrs(),
      },
    };
  });
}
