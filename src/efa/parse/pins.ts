import { z } from 'zod';
import type { Pin } from '../records.js';
import { envelopeList, parseEach, restOf, type Parsed } from './common.js';
import { coordObjectSchema, motTypesSchema, optionalIdSchema } from './fields.js';

/** json dialect: CoordInfo's `pins[]`. */
const wirePinSchema = z.looseObject({
  type: z.string().trim().min(1),
  id: optionalIdSchema,
  name: z.string(),
  coord: coordObjectSchema,
  motTypes: motTypesSchema,
});

const KNOWN = ['type', 'id', 'name', 'coord', 'motTypes'] as const;

export function parsePins(body: unknown): Parsed<Pin> {
  return parseEach('coordInfo', 'pins', envelopeList(body, 'pins'), wirePinSchema, (wire, raw) => ({
    type: wire.type,
    ...(wire.id === undefined ? {} : { id: wire.id }),
    name: wire.name,
    coord: { lat: wire.coord.lat, lon: wire.coord.lon },
    motTypes: wire.motTypes,
    attrs: restOf(raw, KNOWN),
  }));
}
