import { z } from 'zod';
import type { Location } from '../records.js';
import { envelopeList, parseEach, plausibleLonLat, restOf, type Parsed } from './common.js';
import { coordObjectSchema, idSchema, kindSchema, motTypesSchema, numberSchema, optional } from './fields.js';
import { globalIdOf, recordAttributes } from './global-id.js';

const wireAssignedStopSchema = z.looseObject({ id: idSchema, name: z.string() });

/** json dialect: StopFinder's `locations[]`. A stop may carry `motTypes` as pins do. */
const wireLocationSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  type: kindSchema,
  // Only the best match needs flagging; absence is the common "not best".
  isBest: optional(z.boolean()).transform((value) => value ?? false),
  matchQuality: numberSchema,
  coord: optional(coordObjectSchema),
  assignedStops: optional(z.array(wireAssignedStopSchema)),
  motTypes: motTypesSchema,
});

const KNOWN = ['id', 'name', 'type', 'isBest', 'matchQuality', 'coord', 'assignedStops', 'motTypes'] as const;

export function parseLocations(body: unknown): Parsed<Location> {
  return parseEach('stopFinder', 'locations', envelopeList(body, 'locations'), wireLocationSchema, (wire, raw, path) => {
    const globalId = globalIdOf({ id: wire.id, attributes: recordAttributes(raw) });
    return {
      id: wire.id,
      name: wire.name,
      type: wire.type,
      isBest: wire.isBest,
      matchQuality: wire.matchQuality,
      ...(wire.coord === undefined ? {} : { coord: plausibleLonLat(wire.coord.lon, wire.coord.lat, [...path, 'coord']) }),
      ...(wire.assignedStops === undefined
        ? {}
        : {
            assignedStops: wire.assignedStops.map((stop) => ({
              id: stop.id,
              name: stop.name,
              attrs: restOf(stop, ['id', 'name']),
            })),
          }),
      ...(raw['motTypes'] === undefined || raw['motTypes'] === null ? {} : { motTypes: [...new Set(wire.motTypes)].sort((a, b) => a - b) }),
      ...(globalId === undefined ? {} : { globalId }),
      attrs: restOf(raw, KNOWN),
    };
  });
}
