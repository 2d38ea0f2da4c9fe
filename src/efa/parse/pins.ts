import { z } from 'zod';
import type { Pin } from '../records.js';
import { envelopeList, parseEach, plausibleLonLat, restOf, type Parsed } from './common.js';
import { coordObjectSchema, kindSchema, motTypesSchema, optionalIdSchema } from './fields.js';
import { globalIdOf, recordAttributes } from './global-id.js';

/** json dialect: CoordInfo's `pins[]`. Type, id and name are the API's own words, kept as sent. */
const wirePinSchema = z.looseObject({
  type: kindSchema,
  id: optionalIdSchema,
  name: z.string(),
  coord: coordObjectSchema,
  motTypes: motTypesSchema,
});

const KNOWN = ['type', 'id', 'name', 'coord', 'motTypes'] as const;

export function parsePins(body: unknown): Parsed<Pin> {
  return parseEach('coordInfo', 'pins', envelopeList(body, 'pins'), wirePinSchema, (wire, raw, path) => {
    const globalId = globalIdOf({ id: wire.id, attributes: recordAttributes(raw), stopPoint: wire.type === 'BUS_POINT' });
    return {
      type: wire.type,
      ...(wire.id === undefined ? {} : { id: wire.id }),
      name: wire.name,
      coord: plausibleLonLat(wire.coord.lon, wire.coord.lat, [...path, 'coord']),
      motTypes: wire.motTypes,
      ...(globalId === undefined ? {} : { globalId }),
      attrs: restOf(raw, KNOWN),
    };
  });
}
