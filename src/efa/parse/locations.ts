import { z } from 'zod';
import type { Location } from '../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from './common.js';
import { coordObjectSchema, idSchema, numberSchema, optional } from './fields.js';

const wireAssignedStopSchema = z.looseObject({ id: idSchema, name: z.string() });

/** json dialect: StopFinder's `locations[]`. */
const wireLocationSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  type: z.string().trim().min(1),
  // Only the best match needs flagging; absence is the common "not best".
  isBest: optional(z.boolean()).transform((value) => value ?? false),
  matchQuality: numberSchema,
  coord: optional(coordObjectSchema),
  assignedStops: optional(z.array(wireAssignedStopSchema)),
});

const KNOWN = ['id', 'name', 'type', 'isBest', 'matchQuality', 'coord', 'assignedStops'] as const;

export function parseLocations(body: unknown): Parsed<Location> {
  return parseEach('stopFinder', 'locations', envelopeList(body, 'locations'), wireLocationSchema, (wire, raw) => ({
    id: wire.id,
    name: wire.name,
    type: wire.type,
    isBest: wire.isBest,
    matchQuality: wire.matchQuality,
    ...(wire.coord === undefined ? {} : { coord: { lat: wire.coord.lat, lon: wire.coord.lon } }),
    ...(wire.assignedStops === undefined
      ? {}
      : {
          assignedStops: wire.assignedStops.map((stop) => ({
            id: stop.id,
            name: stop.name,
            attrs: restOf(stop, ['id', 'name']),
          })),
        }),
    attrs: restOf(raw, KNOWN),
  }));
}
